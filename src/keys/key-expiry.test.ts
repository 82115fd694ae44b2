/** Reading an expiry request (CLI options or body fields): what is accepted, stored and refused. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExpiryError, resolveExpiry } from './key-expiry.js';

const NAMES = { expiresAt: 'expiresAt', expiresInDays: 'expiresInDays' };
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const resolve = (request: Parameters<typeof resolveExpiry>[0]) => resolveExpiry(request, NAMES, NOW);

describe('API key expiry', () => {
  test('no expiry requested → null (the key never expires)', () => {
    assert.equal(resolve({}), null);
  });

  test('expiresInDays counts whole days from now; expiresAt is stored as UTC ISO', () => {
    assert.equal(resolve({ expiresInDays: 30 }), '2026-03-31T12:00:00.000Z');
    assert.equal(resolve({ expiresInDays: '1' }), '2026-03-02T12:00:00.000Z');
    assert.equal(resolve({ expiresAt: '2026-06-01T12:30:00+02:00' }), '2026-06-01T10:30:00.000Z');
    assert.equal(resolve({ expiresAt: '2026-06-01T10:30Z' }), '2026-06-01T10:30:00.000Z');
  });

  test('refused, with a message naming the field: both, bad numbers, no zone, impossible dates, the past, too far', () => {
    const refusals: [Parameters<typeof resolveExpiry>[0], RegExp][] = [
      [{ expiresAt: '2026-06-01T00:00:00Z', expiresInDays: 3 }, /expiresAt or expiresInDays, not both/],
      [{ expiresInDays: 0 }, /^expiresInDays must be a whole number of days from 1 to 3650\.$/],
      [{ expiresInDays: '1.5' }, /^expiresInDays must be/],
      [{ expiresInDays: 3651 }, /^expiresInDays must be/],
      [{ expiresAt: 'tomorrow' }, /^expiresAt must be a date and time with a zone/],
      [{ expiresAt: '2026-06-01' }, /^expiresAt must be a date and time with a zone/],
      [{ expiresAt: '2026-06-01T00:00:00' }, /^expiresAt must be a date and time with a zone/],
      [{ expiresAt: '2027-02-30T00:00:00Z' }, /^expiresAt must be a date and time with a zone/],
      [{ expiresAt: '2026-03-01T12:00:00Z' }, /^expiresAt must be in the future\.$/],
      [{ expiresAt: '2020-01-01T00:00:00Z' }, /^expiresAt must be in the future\.$/],
      [{ expiresAt: '2040-01-01T00:00:00Z' }, /^expiresAt must be at most 3650 days from now\.$/],
    ];
    for (const [request, message] of refusals) {
      assert.throws(
        () => resolve(request),
        (error) => error instanceof ExpiryError && message.test(error.message),
      );
    }
  });
});
