/** `admin mail status`: the notification mail queue that every process sends from (mail/queue.repository.ts). */
import { mailQueueStatus } from '../../mail/queue.repository.js';
import type { CommandGroup } from './command.js';

/** How many of the latest failures, and of the mails being retried, the status lists. */
const LISTED = 20;

export const mailCommands: CommandGroup = {
  title: 'Notification email (sent by the servers while SMTP_URL and MAIL_FROM are set)',
  commands: {
    'mail status': {
      summary:
        'the mail queue: how many mails are pending, sent, failed for good, or dropped (their task no longer ' +
        `readable, or email turned off), the oldest pending, and the latest ${LISTED} retried and failed with ` +
        'their SMTP error → {"pending", "sent", "failed", "dropped", "oldestPendingAt", "retrying": [{"id", ' +
        '"userId", "attempts", "lastError", "nextAttemptAt"}], "recentFailures": [{"id", "userId", "kind", ' +
        '"taskId", "attempts", "error", "failedAt"}]}',
      usage: '',
      options: {},
      required: [],
      run: (store) => mailQueueStatus(store.db, LISTED),
    },
  },
};
