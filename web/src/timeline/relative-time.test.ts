/** Times as the timeline says them (relative-time.ts): "5 minutes ago", "yesterday", "20 Nov". */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { relativeTime } from './relative-time';

describe('relative times', () => {
  const now = Date.parse('2026-12-05T12:00:00.000Z');
  const earlier = (ms: number) => new Date(now - ms).toISOString();
  const MINUTE = 60_000;

  test('counts minutes, hours and days, then gives the date', () => {
    assert.equal(relativeTime(earlier(20_000), now), 'just now');
    assert.equal(relativeTime(earlier(-5_000), now), 'just now', 'a server clock slightly ahead is not "in 5 seconds"');
    assert.equal(relativeTime(earlier(MINUTE), now), '1 minute ago');
    assert.equal(relativeTime(earlier(5 * MINUTE + 10_000), now), '5 minutes ago');
    assert.equal(relativeTime(earlier(3 * 60 * MINUTE), now), '3 hours ago');
    assert.equal(relativeTime(earlier(25 * 60 * MINUTE), now), 'yesterday');
    assert.equal(relativeTime(earlier(3 * 24 * 60 * MINUTE), now), '3 days ago');
    assert.equal(relativeTime('2026-11-20T12:00:00.000Z', now, 'en-GB'), '20 Nov');
    assert.equal(relativeTime('2025-11-20T12:00:00.000Z', now, 'en-GB'), '20 Nov 2025', 'another year is named');
  });
});
