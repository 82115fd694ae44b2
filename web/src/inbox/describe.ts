/** What a notification says, in one sentence (as its email says it: src/mail/message.ts). */
import type { Notification } from '@contract';

export function describeNotification(notification: Notification): string {
  const actor = notification.actor?.name ?? 'Someone';
  const task = `#${notification.task.number} ${notification.task.title}`;
  switch (notification.kind) {
    case 'assigned':
      return `${actor} assigned you to ${task}`;
    case 'unassigned':
      return `${actor} unassigned you from ${task}`;
    case 'mentioned':
      return `${actor} mentioned you on ${task}`;
    case 'commented':
      return `${actor} commented on ${task}`;
    case 'statusChanged':
      return `${actor} changed the status of ${task}`;
    case 'dueSoon':
      return `${task} is due soon`;
    case 'overdue':
      return `${task} is overdue`;
  }
}
