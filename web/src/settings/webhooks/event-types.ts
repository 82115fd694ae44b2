/** The event types a webhook can get, as a person reads them. */
import { CHANGE_EVENT_TYPES, type ChangeEventType } from '@contract/enums';

export const EVENT_TYPES = CHANGE_EVENT_TYPES;

const LABELS: Record<ChangeEventType, string> = {
  'taskList.created': 'List created',
  'taskList.updated': 'List changed',
  'taskList.archived': 'List archived',
  'taskList.unarchived': 'List unarchived',
  'task.created': 'Task created',
  'task.updated': 'Task changed',
  'task.deleted': 'Task deleted',
  'comment.created': 'Comment added',
  'comment.updated': 'Comment edited',
  'comment.deleted': 'Comment deleted',
  'attachment.created': 'File attached',
  'attachment.deleted': 'File removed',
  'taskStatus.created': 'Status created',
  'taskStatus.updated': 'Status changed',
  'taskStatus.deleted': 'Status deleted',
  'label.created': 'Label created',
  'label.updated': 'Label changed',
  'label.deleted': 'Label deleted',
  'task.dueSoon': 'Task due soon (reminder)',
  'task.overdue': 'Task overdue (reminder)',
};

/** "Task created" ("Test" for a test delivery), or the type itself for one the app does not know. */
export const labelOf = (type: string): string =>
  type === 'webhook.test' ? 'Test' : (LABELS[type as ChangeEventType] ?? type);

/** "All events", or the chosen ones by name. */
export const describeEventTypes = (types: readonly string[] | null): string =>
  types === null ? 'All events' : types.map(labelOf).join(', ');
