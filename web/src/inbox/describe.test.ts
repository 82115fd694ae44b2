/** What a notification says (describe.ts): a change names who made it; a reminder has no one. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Notification } from '@contract';
import { describeNotification } from './describe';

const notification = (kind: Notification['kind'], actor: Notification['actor']): Notification => ({
  id: 1,
  kind,
  task: { id: 7, number: 12, title: 'Pay the invoice' },
  actor,
  createdAt: '2026-11-29T09:00:00.000Z',
  readAt: null,
  late: false,
});

test('reminders say what is due, with no one behind them; a change names its actor', () => {
  assert.equal(describeNotification(notification('dueSoon', null)), '#12 Pay the invoice is due soon');
  assert.equal(describeNotification(notification('overdue', null)), '#12 Pay the invoice is overdue');
  assert.equal(
    describeNotification(notification('assigned', { id: 'u1', name: 'Ada Lovelace' })),
    'Ada Lovelace assigned you to #12 Pay the invoice',
  );
  assert.equal(describeNotification(notification('assigned', null)), 'Someone assigned you to #12 Pay the invoice');
});
