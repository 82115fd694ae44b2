/**
 * The API's contract: every request and response schema, its TypeScript type, and the fixed
 * value sets. The server validates, serializes and documents with these schemas; the web app
 * imports the types (and the enumerations) from here, so the two cannot drift apart.
 *
 * Nothing here imports server code: the web app's compiler reads these files too.
 */
export * from './common.js';
export * from './enums.js';
export * from './keys.js';
export * from './lists.js';
export * from './sessions.js';
export * from './statuses.js';
export * from './tasks.js';
export * from './team.js';
export * from './activity.js';
export * from './comments.js';
export * from './attachments.js';
export * from './webhooks.js';
export * from './invitations.js';
export * from './labels.js';
export * from './search.js';
export * from './views.js';
export * from './mail.js';
export * from './reminders.js';
export * from './notifications.js';
export * from './exports.js';
export * from './imports.js';
export * from './oauth.js';
