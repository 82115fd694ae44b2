/**
 * The two faults of the soak, each with its window: from the fault until the affected part
 * answers again (a health probe that needs the database: GET /v1/me with a key), plus a margin.
 * Inside a window 503, 429 and lost connections are allowed; outside, none is.
 */
import http from 'node:http';
import { sleep } from '../support.js';
import type { Fleet, Member } from './fleet.js';
import { now, type Ledger, type Ms } from './ledger.js';
import type { SoakPostgres } from './postgres.js';

/** How long after a kill the supervisor starts the replacement. */
export const RESTART_DELAY_MS = 5_000;
const PROBE_TIMEOUT_MS = 60_000;

/** GET /v1/me straight to `member` (not through the balancer, not counted as load); the status or 0. */
function probe(member: Member, key: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(
      {
        host: member.url.hostname,
        port: member.url.port,
        path: '/v1/me',
        agent: false,
        headers: { 'x-api-key': key },
        timeout: 5_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** When every one of `members` has answered 200 (each probed every 200 ms); undefined after the timeout. */
async function answering(members: Member[], key: string): Promise<Ms | undefined> {
  const deadline = now() + PROBE_TIMEOUT_MS;
  const pending = new Set(members);
  while (pending.size > 0 && now() < deadline) {
    for (const member of [...pending]) if ((await probe(member, key)) === 200) pending.delete(member);
    if (pending.size > 0) await sleep(200);
  }
  return pending.size === 0 ? now() : undefined;
}

/**
 * SIGKILL the process in `slot`, and a few seconds later start a new one on the same port.
 * Returns the replacement (undefined if it did not start) and the problems seen.
 */
export async function killAndReplace(
  fleet: Fleet,
  ledger: Ledger,
  slot: number,
  key: string,
  marginMs: number,
): Promise<{ replacement?: Member; problems: string[] }> {
  const problems: string[] = [];
  const window = ledger.openWindow(`SIGKILL of process ${fleet.slots[slot]!.label}`);
  const victim = fleet.kill(slot);
  ledger.note(`SIGKILL to process ${victim.label} (pid ${victim.pid}); the balancer routes around it`);
  const exit = await fleet.exited(victim);
  if (exit?.signal !== 'SIGKILL')
    problems.push(`process ${victim.label} did not die of SIGKILL (exit: ${JSON.stringify(exit)})`);
  await sleep(RESTART_DELAY_MS);
  let replacement: Member;
  try {
    replacement = await fleet.replace(slot);
  } catch (error) {
    ledger.closeWindow(window, now(), marginMs);
    problems.push(`the replacement for process ${victim.label} did not start: ${String(error).slice(0, 500)}`);
    return { problems };
  }
  ledger.note(
    `process ${replacement.label} (pid ${replacement.pid}) listening on ${victim.label}'s port ${replacement.url.port}`,
  );
  const recovered = await answering([replacement], key);
  if (recovered === undefined)
    problems.push(`process ${replacement.label} did not answer GET /v1/me within ${PROBE_TIMEOUT_MS / 1000} s`);
  else ledger.note(`process ${replacement.label} answers GET /v1/me`);
  ledger.closeWindow(window, recovered ?? now(), marginMs);
  return { replacement, problems };
}

/** Restarts PostgreSQL; the window lasts until every live process answers again. */
export async function restartPostgres(
  fleet: Fleet,
  ledger: Ledger,
  postgres: SoakPostgres,
  key: string,
  marginMs: number,
): Promise<string[]> {
  const problems: string[] = [];
  const window = ledger.openWindow('PostgreSQL restart');
  ledger.note('PostgreSQL restart begins');
  try {
    await postgres.restart();
    ledger.note('PostgreSQL accepts connections again');
  } catch (error) {
    problems.push(`PostgreSQL did not restart: ${String(error).slice(0, 500)}`);
  }
  const recovered = await answering(fleet.live(), key);
  if (recovered === undefined)
    problems.push(`not every process answered GET /v1/me within ${PROBE_TIMEOUT_MS / 1000} s of the restart`);
  else
    ledger.note(
      `every process (${fleet
        .live()
        .map((m) => m.label)
        .join(', ')}) answers GET /v1/me again`,
    );
  ledger.closeWindow(window, recovered ?? now(), marginMs);
  return problems;
}
