/** The one date format (dates.ts): day and month, the year only when it is not this year, a time where there is one. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDate, formatDueDate, formatTimestamp } from './dates';

describe('dates as people read them', () => {
  // Noon on 5 December 2026, in the test's own time zone (as the browser's dates are).
  const now = new Date(2026, 11, 5, 12, 0).getTime();

  test('a date of this year has no year; one of another year, before or after, names it', () => {
    assert.equal(formatDate(new Date(2026, 10, 27), now, 'en-GB'), '27 Nov');
    assert.equal(formatDate(new Date(2025, 10, 27), now, 'en-GB'), '27 Nov 2025');
    assert.equal(formatDate(new Date(2027, 0, 3), now, 'en-GB'), '3 Jan 2027');
  });

  test('due dates follow the same rule, read as calendar days whatever the time zone', () => {
    assert.equal(formatDueDate('2026-12-01', now, 'en-GB'), '1 Dec');
    assert.equal(formatDueDate('2027-01-15', now, 'en-GB'), '15 Jan 2027');
    assert.equal(
      formatDueDate('2026-01-01', now, 'en-GB'),
      '1 Jan',
      'the first day of the year is not the last of the one before',
    );
  });

  test('a timestamp is the same date with its time after it; none is "never"', () => {
    const at = (y: number, m: number, d: number) => new Date(y, m, d, 17, 4).toISOString();
    assert.equal(formatTimestamp(at(2026, 10, 21), now, 'en-GB'), '21 Nov, 17:04');
    assert.equal(formatTimestamp(at(2025, 10, 21), now, 'en-GB'), '21 Nov 2025, 17:04');
    assert.equal(formatTimestamp(null, now, 'en-GB'), 'never');
  });

  test('the locale orders the parts, the same way for every kind of date (no 11/27/2026 beside Nov 27)', () => {
    assert.equal(formatDate(new Date(2026, 10, 27), now, 'en-US'), 'Nov 27');
    assert.equal(formatDueDate('2025-11-27', now, 'en-US'), 'Nov 27, 2025');
    assert.match(formatTimestamp(new Date(2026, 10, 27, 17, 4).toISOString(), now, 'en-US'), /^Nov 27, 5:04\sPM$/);
  });
});
