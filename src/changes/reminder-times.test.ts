import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalTimeZone, instantOf, reminderTimes } from './reminder-times.js';

test('a wall-clock time in a zone is the instant it names there, in winter and in summer', () => {
  assert.equal(instantOf('2026-01-15', 0, '09:00', 'Europe/Berlin').toISOString(), '2026-01-15T08:00:00.000Z');
  assert.equal(instantOf('2026-07-15', 0, '09:00', 'Europe/Berlin').toISOString(), '2026-07-15T07:00:00.000Z');
  assert.equal(instantOf('2026-07-15', 0, '09:00', 'America/Los_Angeles').toISOString(), '2026-07-15T16:00:00.000Z');
  assert.equal(instantOf('2026-07-15', 0, '09:30', 'Asia/Kolkata').toISOString(), '2026-07-15T04:00:00.000Z');
  assert.equal(instantOf('2026-07-15', 0, '00:00', 'UTC').toISOString(), '2026-07-15T00:00:00.000Z');
});

test('days are shifted on the calendar, across month ends and summer time changes', () => {
  assert.equal(instantOf('2026-03-01', -1, '09:00', 'UTC').toISOString(), '2026-02-28T09:00:00.000Z');
  assert.equal(instantOf('2026-12-31', 1, '09:00', 'UTC').toISOString(), '2027-01-01T09:00:00.000Z');
  // Berlin goes to summer time on 29 March 2026: 9:00 the day before is UTC+1, 9:00 the day after UTC+2.
  assert.equal(instantOf('2026-03-29', -1, '09:00', 'Europe/Berlin').toISOString(), '2026-03-28T08:00:00.000Z');
  assert.equal(instantOf('2026-03-29', 1, '09:00', 'Europe/Berlin').toISOString(), '2026-03-30T07:00:00.000Z');
});

test('a time the clocks skip falls an hour later; a time they repeat is the second of the two', () => {
  assert.equal(instantOf('2026-03-29', 0, '02:30', 'Europe/Berlin').toISOString(), '2026-03-29T01:30:00.000Z');
  assert.equal(instantOf('2026-10-25', 0, '02:30', 'Europe/Berlin').toISOString(), '2026-10-25T01:30:00.000Z');
});

test('due soon is days before the due date at the time; overdue is the day after at the same time', () => {
  const times = reminderTimes('2026-05-10', { timeZone: 'UTC', daysBefore: 2, time: '08:15' });
  assert.equal(times.dueSoon.toISOString(), '2026-05-08T08:15:00.000Z');
  assert.equal(times.overdue.toISOString(), '2026-05-11T08:15:00.000Z');
});

test('time zone names are checked, and kept as given in the case the runtime lists them', () => {
  assert.equal(canonicalTimeZone('Europe/Berlin'), 'Europe/Berlin');
  assert.equal(canonicalTimeZone('utc'), 'UTC');
  assert.equal(canonicalTimeZone('europe/berlin'), 'Europe/Berlin');
  assert.equal(canonicalTimeZone('Asia/Kolkata'), 'Asia/Kolkata', 'a newer name stays, whatever the runtime calls it');
  assert.equal(canonicalTimeZone('Mars/Olympus'), undefined);
  assert.equal(canonicalTimeZone(''), undefined);
});
