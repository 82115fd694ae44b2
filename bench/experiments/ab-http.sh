#!/bin/bash
# A/B of one read over HTTP between two built checkouts (A and B, each with `npx tsc -p
# tsconfig.json` run in it): each serves a fresh SQLite database of its own with one task, and
# wrk reads GET /v1/tasks/{id} from each in turn, ROUNDS times, SECONDS each. Ratios of req/s
# from the same run are the figure to read on a shared machine.
#
#   bench/experiments/ab-http.sh <checkout A> <checkout B> [ROUNDS=4] [SECONDS=6]
set -euo pipefail
A=$1 B=$2 ROUNDS=${3:-4} SECONDS_EACH=${4:-6}
work=$(mktemp -d)
trap 'kill $(cat "$work"/*/pid 2>/dev/null) 2>/dev/null; rm -rf "$work"' EXIT
for side in A B; do
  root=${!side} dir=$work/$side
  mkdir -p "$dir"
  DATABASE_URL=sqlite:$dir/t.db PORT=0 LOG_LEVEL=error RATE_LIMIT_PER_MINUTE=0 SCHEDULED_JOBS=off \
    node --max-semi-space-size=4 "$root/bin/tasklane.js" serve >"$dir/out.log" 2>&1 &
  echo $! >"$dir/pid"
  for _ in $(seq 1 100); do grep -q "listening on" "$dir/out.log" && break; sleep 0.1; done
  url=$(grep -o "listening on http://[^ ]*" "$dir/out.log" | awk '{print $3}')
  key=$(grep -oi "x-api-key: *[^ '\"]*" "$dir/out.log" | head -1 | awk '{print $2}')
  id=$(curl -s -X POST -H "x-api-key: $key" -H 'content-type: application/json' -d '{"title":"Bench"}' \
    "$url/v1/tasks" | node -e 'process.stdin.on("data", (d) => console.log(JSON.parse(d).id))')
  echo "$url $key $id" >"$dir/info"
done
for round in $(seq 1 "$ROUNDS"); do
  for side in A B; do
    read -r url key id <"$work/$side/info"
    rps=$(wrk -t1 -c10 -d"${SECONDS_EACH}s" -H "x-api-key: $key" "$url/v1/tasks/$id" | awk '/Requests\/sec/ {print $2}')
    echo "round $round $side $rps req/s"
  done
done
