/**
 * Table types for Kysely. Columns are portable across SQLite and PostgreSQL:
 * booleans are 0/1 integers, timestamps are ISO 8601 UTC strings (which sort as text),
 * dates are `YYYY-MM-DD` strings, user/team/key ids are UUID strings.
 */
import type { Generated, Insertable, Kysely, Selectable } from 'kysely';

export interface TeamsTable {
  id: string;
  name: string;
  /** Last task number handed out in this team; bumped inside the creating transaction. */
  task_counter: Generated<number>;
  /** Last realtime event sequence number of this team (see events.seq). */
  event_counter: Generated<number>;
  created_at: string;
  /** 1: made by the first start and not set up by its owner yet (migration 0016; POST /auth/setup). */
  setup_pending: Generated<number>;
  /** Bytes of the team's attachments (migration 0024), counted against ATTACHMENTS_TEAM_QUOTA_BYTES; int8 (text from pg). */
  attachment_bytes: Generated<number | string>;
}

export interface UsersTable {
  id: string;
  /** Stored lower-cased so sign-in and uniqueness ignore case. */
  email: string;
  name: string;
  password_hash: string | null;
  created_at: string;
}

export type { Role } from '../contract/enums.js';
import type { ListColor, Priority, Role } from '../contract/enums.js';

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  role: Role;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  team_id: string;
  user_id: string;
  name: string;
  /** First characters of the key, safe to display. */
  prefix: string;
  /** sha256 of the whole key, hex; the key itself is never stored. */
  secret_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** ISO timestamp (UTC) after which the key is refused; null: never expires. */
  expires_at: string | null;
  /** JSON array of the key's scopes (contract/keys.ts KEY_SCOPES); null: full power (migration 0027). */
  scopes: string | null;
  /** JSON array of the list ids the key is limited to; null: every list its user may use. */
  list_ids: string | null;
}

export interface TaskStatusesTable {
  id: Generated<number>;
  team_id: string;
  name: string;
  color: string | null;
  is_default: number;
  is_completed: number;
  sort_order: number;
}

export interface TaskListsTable {
  id: Generated<number>;
  team_id: string;
  name: string;
  color: ListColor;
  is_archived: Generated<number>;
  /** 1: every member of the team is a member of the list (migration 0015; lists/shared-lists.ts). */
  shared_with_team: Generated<number>;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** Bumped on every change; the basis of ETags. */
  version: Generated<number>;
}

export interface ListMembersTable {
  list_id: number;
  user_id: string;
  created_at: string;
}

export interface TasksTable {
  id: Generated<number>;
  team_id: string;
  number: number;
  title: string;
  /** The title folded to lower case (full Unicode), for case-insensitive search on both engines. */
  title_search: string;
  description: string | null;
  priority: Priority | null;
  due_date: string | null;
  status_id: number;
  parent_id: number | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  version: Generated<number>;
}

export interface TaskAssigneesTable {
  task_id: number;
  user_id: string;
}

/** A team's label (migration 0017). */
export interface LabelsTable {
  id: Generated<number>;
  team_id: string;
  name: string;
  /** The name folded to lower case: unique in the team, so names differ by more than case. */
  name_key: string;
  color: ListColor;
  created_at: string;
}

export interface TaskLabelsTable {
  task_id: number;
  label_id: number;
}

export interface TaskListItemsTable {
  task_id: number;
  list_id: number;
  /** Copies of the task's priority and its status's isCompleted, for list filters (migration 0005). */
  priority: Priority | null;
  is_completed: Generated<number>;
}

export interface EventsTable {
  id: Generated<number>;
  team_id: string;
  /** Increasing per team in commit order; the SSE event id. */
  seq: number;
  type: string;
  /** JSON. */
  data: string;
  created_at: string;
}

export interface EventRecipientsTable {
  event_id: number;
  user_id: string;
}

/** An immutable snapshot of one list's members (migration 0020). */
export interface ListAudiencesTable {
  id: Generated<number>;
  team_id: string;
  list_id: number;
  created_at: string;
  superseded_at: string | null;
}

export interface ListAudienceMembersTable {
  audience_id: number;
  user_id: string;
}

/** The snapshot that still equals the list's members; deleted by trigger when they change. */
export interface ListCurrentAudiencesTable {
  list_id: number;
  audience_id: number;
}

export interface EventAudiencesTable {
  event_id: number;
  audience_id: number;
}

export interface SessionsTable {
  /** sha256 of the cookie's secret. */
  id: string;
  user_id: string;
  team_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/** A POST's Idempotency-Key and its sealed answer (migration 0008; see http/idempotency.ts). */
export interface IdempotencyKeysTable {
  credential: string;
  team_id: string;
  key_hash: string;
  fingerprint: string;
  response: string | null;
  created_at: string;
}

/** One committed change of a task (migration 0012; see activity/). */
export interface TaskActivityTable {
  id: Generated<number>;
  task_id: number;
  /** Null: an operator's change (`tasklane admin`). */
  actor_id: string | null;
  kind: string;
  /** JSON: {"<field>": {"from", "to"}}, people and lists by id. */
  changes: string;
  created_at: string;
  /** JSON `{"kind":"agent","keyName"}` for a change made through /mcp (migration 0028); else null. */
  via: string | null;
}

/** A comment on a task (migration 0012; see comments/). */
export interface TaskCommentsTable {
  id: Generated<number>;
  task_id: number;
  author_id: string;
  /** CommonMark source. */
  body: string;
  created_at: string;
  updated_at: string;
  /** Bumped on every edit; the basis of ETags. */
  version: Generated<number>;
}

/** A file on a task (migration 0024; see attachments/): the bytes are in the file store, at `storage_key`. */
export interface AttachmentsTable {
  id: Generated<number>;
  team_id: string;
  task_id: number;
  /** The file store's key: server-made, never the client's name. */
  storage_key: string;
  /** The client's file name, sanitized for display; never a path. */
  name: string;
  /** int8: pg returns it as text. */
  size: number | string;
  /** Sniffed from the bytes. */
  content_type: string;
  sha256: string;
  uploaded_by: string;
  created_at: string;
}

/** A team export (migration 0025; see exports/): the file is in the exports' file store, at `storage_key`. */
export interface ExportsTable {
  id: Generated<number>;
  team_id: string;
  requested_by: string;
  scope: 'team' | 'readable';
  status: 'pending' | 'running' | 'ready' | 'failed';
  storage_key: string | null;
  /** int8: pg returns it as text. */
  size: number | string | null;
  sha256: string | null;
  /** JSON text: lines of each type, as the file's `end` line counts them. */
  counts: string | null;
  error: string | null;
  created_at: string;
  /** The running export's heartbeat. */
  updated_at: string;
  finished_at: string | null;
  expires_at: string | null;
}

/** An import (migration 0026; see imports/): one uploaded file, its plan, and its apply. */
export interface ImportsTable {
  id: Generated<number>;
  team_id: string;
  requested_by: string;
  source: string;
  file_name: string | null;
  /** `planning`: its upload is still being read; no one else sees it yet. */
  status: 'planning' | 'planned' | 'applying' | 'applied' | 'cancelled' | 'failed' | 'undone';
  /** JSON text: the plan (contract/imports.ts ImportPlan). */
  plan: string;
  rows_total: number;
  rows_done: number;
  /** JSON text: what the apply did (ImportResult), once it started. */
  result: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** What an import's file said, one object per row in writing order (migration 0026). */
export interface ImportRowsTable {
  import_id: number;
  seq: number;
  /** JSON text: a SourceItem (imports/sources/source-items.ts). */
  item: string;
}

/** An imported object's source ref → what it became (migration 0026). */
export interface ImportObjectsTable {
  team_id: string;
  ref: string;
  kind: 'status' | 'label' | 'list' | 'task' | 'comment';
  object_id: number;
  /** The import that created it; null when it matched an object that was there. */
  created_by_import: number | null;
  /** The object's version as the import left it (tasks, lists, comments). */
  version: number | null;
  /** SHA-256 of the source's object as last applied: the same again changes nothing. */
  source_hash: string;
}

/** An outgoing webhook (migration 0013; see webhooks/). */
export interface WebhooksTable {
  id: string;
  team_id: string;
  owner_id: string;
  url: string;
  description: string;
  /** 1: every event type; 0: only those in webhook_event_types. */
  all_events: number;
  enabled: number;
  disabled_reason: string | null;
  disabled_at: string | null;
  /** Sealed with the server's key (webhooks/secret-box.ts); never the secret in clear. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventTypesTable {
  webhook_id: string;
  type: string;
}

/** One event (or test) to send to one webhook; the id orders an endpoint's queue. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: string;
  /** The outbox event (events.id, not a foreign key: events are pruned sooner); null for a test. */
  event_id: number | null;
  type: string;
  /** The event's data (ids), JSON. */
  data: string;
  occurred_at: string;
  /** The body as sent, built at the first attempt; null before it. */
  payload: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: Generated<number>;
  first_attempt_at: string | null;
  next_attempt_at: string;
  /** The lease of the worker sending it now, if any. */
  locked_until: string | null;
  finished_at: string | null;
  created_at: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: string;
  duration_ms: number;
  status_code: number | null;
  /** The first 4 KB of the response body. */
  response_body: string | null;
  error: string | null;
  next_attempt_at: string | null;
}

/** An invitation into a team (migration 0014; see invitations/). */
export interface InvitationsTable {
  id: string;
  team_id: string;
  role: Role;
  /** Lower case; null: anyone holding the link may accept it. */
  email: string | null;
  /** sha256 of the link's token, hex (secret-hash.ts); the token itself is never stored. */
  token_hash: string;
  invited_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  used_by: string | null;
  revoked_at: string | null;
}

/** A saved view (migration 0019; views/): GET /v1/tasks's filters and sort, and a layout, by name. */
export interface ViewsTable {
  id: Generated<number>;
  team_id: string;
  /** null: the team's, its author having left. */
  author_id: string | null;
  name: string;
  name_key: string;
  /** JSON of contract TaskFilters. */
  filters: string;
  sort: string | null;
  layout: string;
  shared_with_team: number;
  created_at: string;
  updated_at: string;
}

/** One person notified of a change (migration 0021; changes/notifications.ts writes them). */
export interface NotificationsTable {
  id: Generated<number>;
  team_id: string;
  user_id: string;
  task_id: number;
  kind: string;
  actor_id: string | null;
  created_at: string;
  read_at: string | null;
  archived_at: string | null;
  /** 1: a reminder fired well after its planned minute (every process was down then). */
  late: Generated<number>;
}

/** Who follows a task beyond its creator and assignees, and who stopped (`following` 0). */
export interface TaskFollowersTable {
  task_id: number;
  user_id: string;
  following: number;
  created_at: string;
}

/** A member named by an `@` in a comment (`comment_id`) or the task's description (null). */
export interface MentionsTable {
  id: Generated<number>;
  task_id: number;
  comment_id: number | null;
  user_id: string;
  created_at: string;
}

/** A person's choice for one kind of notification (migration 0022; mail/). */
export interface NotificationPreferencesTable {
  user_id: string;
  kind: string;
  /** inbox | inboxAndEmail | off */
  delivery: string;
}

/** A notification to be mailed (migration 0022; mail/queue.repository.ts). */
/** A person's reminder settings (migration 0023); without a row, the defaults. */
export interface ReminderSettingsTable {
  user_id: string;
  time_zone: string;
  days_before: number;
  /** HH:MM, in `time_zone`. */
  time_of_day: string;
}

/** Work planned for a minute, run once by whichever process claims it (jobs/). */
export interface ScheduledJobsTable {
  id: Generated<number>;
  kind: string;
  team_id: string;
  task_id: number | null;
  user_id: string | null;
  data: string;
  run_at: string;
  claim: string | null;
  claimed_until: string | null;
  attempts: Generated<number>;
  last_error: string | null;
  created_at: string;
}

export interface MailQueueTable {
  id: Generated<number>;
  user_id: string;
  team_id: string;
  kind: string;
  task_id: number;
  actor_id: string | null;
  created_at: string;
  status: 'pending' | 'sent' | 'failed' | 'dropped';
  next_attempt_at: string;
  locked_until: string | null;
  attempt_count: Generated<number>;
  first_attempt_at: string | null;
  message_id: string | null;
  last_error: string | null;
  finished_at: string | null;
}

/** The one row (id 1) saying until when some process sends mail, and its batch window (migration 0022). */
export interface MailSendersTable {
  id: number;
  sending_until: string;
  batch_ms: number;
}

/** An unsubscribe link's token, hashed (migration 0022). */
export interface MailUnsubscribeTokensTable {
  token_hash: string;
  user_id: string;
  created_at: string;
}

/** A client that registered itself for OAuth (migration 0029, RFC 7591): public, no secret. */
export interface OAuthClientsTable {
  id: string;
  client_name: string;
  /** A JSON array of exact URIs. */
  redirect_uris: string;
  created_at: string;
  /** When a person last allowed it (migration 0030); null: never. */
  authorized_at: string | null;
}

/** An authorization code, hashed; single use, ten minutes (migration 0029). */
export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  team_id: string;
  user_id: string;
  /** A JSON array of key scopes. */
  scopes: string;
  /** A JSON array of list ids, or null: every list. */
  list_ids: string | null;
  code_challenge: string;
  redirect_uri: string;
  resource: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** The access token (an api_keys row) the code was exchanged for. */
  key_id: string | null;
}

export interface Tables {
  teams: TeamsTable;
  users: UsersTable;
  team_members: TeamMembersTable;
  api_keys: ApiKeysTable;
  task_statuses: TaskStatusesTable;
  task_lists: TaskListsTable;
  list_members: ListMembersTable;
  tasks: TasksTable;
  task_assignees: TaskAssigneesTable;
  task_list_items: TaskListItemsTable;
  events: EventsTable;
  event_recipients: EventRecipientsTable;
  list_audiences: ListAudiencesTable;
  list_audience_members: ListAudienceMembersTable;
  list_current_audiences: ListCurrentAudiencesTable;
  event_audiences: EventAudiencesTable;
  sessions: SessionsTable;
  idempotency_keys: IdempotencyKeysTable;
  task_activity: TaskActivityTable;
  task_comments: TaskCommentsTable;
  attachments: AttachmentsTable;
  exports: ExportsTable;
  imports: ImportsTable;
  import_rows: ImportRowsTable;
  import_objects: ImportObjectsTable;
  webhooks: WebhooksTable;
  webhook_event_types: WebhookEventTypesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  invitations: InvitationsTable;
  labels: LabelsTable;
  task_labels: TaskLabelsTable;
  views: ViewsTable;
  notifications: NotificationsTable;
  task_followers: TaskFollowersTable;
  mentions: MentionsTable;
  notification_preferences: NotificationPreferencesTable;
  mail_queue: MailQueueTable;
  reminder_settings: ReminderSettingsTable;
  scheduled_jobs: ScheduledJobsTable;
  mail_unsubscribe_tokens: MailUnsubscribeTokensTable;
  mail_senders: MailSendersTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
}

/** A connection or a transaction: repositories accept either. */
export type Db = Kysely<Tables>;

export type TeamRow = Selectable<TeamsTable>;
export type UserRow = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type StatusRow = Selectable<TaskStatusesTable>;
export type LabelRow = Selectable<LabelsTable>;
export type ListRow = Selectable<TaskListsTable>;
export type TaskRow = Selectable<TasksTable>;
export type NewTask = Insertable<TasksTable>;
export type ActivityRow = Selectable<TaskActivityTable>;
export type CommentRow = Selectable<TaskCommentsTable>;
export type AttachmentRow = Selectable<AttachmentsTable>;
export type ExportRow = Selectable<ExportsTable>;
export type InvitationRow = Selectable<InvitationsTable>;
