/** The retry schedule: exponential, capped, jittered within ±20%, and over after `retryForMs`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextAttemptAt } from './retry-schedule.js';

const DEFAULTS = { retryFirstDelayMs: 30_000, retryMaxDelayMs: 12 * 3600_000, retryForMs: 3 * 86_400_000 };

/** Every attempt's time, from a first one at 0, with the jitter fixed at `random`. */
function schedule(random: number): number[] {
  const times = [0];
  for (;;) {
    const next = nextAttemptAt(DEFAULTS, times.length, 0, times.at(-1)!, () => random);
    if (next === null) return times;
    times.push(next);
  }
}

test('with the defaults, retries double from 30 s up to 12 h and stop once 3 days have passed since the first attempt', () => {
  const times = schedule(0.5); // no jitter
  const delays = times.slice(1).map((t, i) => t - times[i]!);
  assert.deepEqual(delays.slice(0, 4), [30_000, 60_000, 120_000, 240_000]);
  assert.ok(delays.every((d) => d <= 12 * 3600_000));
  assert.equal(delays.at(-1), 12 * 3600_000);
  assert.ok(times.at(-1)! <= 3 * 86_400_000, 'no attempt later than 3 days');
  assert.ok(times.at(-1)! > 2.5 * 86_400_000, `the last attempt is near 3 days (${times.at(-1)! / 3600_000} h)`);
  assert.equal(times.length, 16);
});

test('jitter spreads each delay within ±20%', () => {
  const low = nextAttemptAt(DEFAULTS, 3, 0, 1000, () => 0)!;
  const high = nextAttemptAt(DEFAULTS, 3, 0, 1000, () => 0.999999)!;
  assert.equal(low - 1000, 96_000);
  assert.ok(high - 1000 >= 143_999 && high - 1000 <= 144_000);
});

test('no retry is scheduled beyond retryForMs after the first attempt', () => {
  assert.equal(
    nextAttemptAt({ ...DEFAULTS, retryForMs: 10_000 }, 1, 0, 0, () => 0.5),
    null,
  );
  assert.equal(
    nextAttemptAt({ ...DEFAULTS, retryForMs: 0 }, 1, 0, 0, () => 0),
    null,
  );
});
