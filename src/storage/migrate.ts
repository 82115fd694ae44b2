/** Versioned schema migrations, run by `serve` before it listens and by `admin` before it acts. */
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Store } from './database.js';
import type { DialectName } from './dialect.js';
import { initialSchema } from './migrations/0001_initial.js';
import { eventsOutbox } from './migrations/0002_events.js';
import { sessions } from './migrations/0003_sessions.js';
import { taskListOrder } from './migrations/0004_task_list_order.js';
import { listItemFilters } from './migrations/0005_list_item_filters.js';
import { apiKeyExpiry } from './migrations/0006_api_key_expiry.js';
import { rateLimitCounters } from './migrations/0007_rate_limit_counters.js';
import { idempotencyKeys } from './migrations/0008_idempotency_keys.js';
import { searchStatistics } from './migrations/0009_search_statistics.js';
import { sessionExpiryIndex } from './migrations/0010_session_expiry_index.js';
import { titleSearchIndex } from './migrations/0011_title_search_index.js';
import { taskActivityAndComments } from './migrations/0012_task_activity_and_comments.js';
import { webhooks } from './migrations/0013_webhooks.js';
import { invitations } from './migrations/0014_invitations.js';
import { sharedLists } from './migrations/0015_shared_lists.js';
import { teamSetup } from './migrations/0016_team_setup.js';
import { labels } from './migrations/0017_labels.js';
import { fullTextSearch } from './migrations/0018_full_text_search.js';
import { viewsAndTaskSorts } from './migrations/0019_views_and_task_sorts.js';
import { notifications } from './migrations/0021_notifications.js';
import { listAudiences } from './migrations/0020_list_audiences.js';
import { mail } from './migrations/0022_mail.js';
import { reminders } from './migrations/0023_reminders.js';
import { attachments } from './migrations/0024_attachments.js';
import { exports } from './migrations/0025_exports.js';
import { imports } from './migrations/0026_imports.js';
import { keyScopes } from './migrations/0027_key_scopes.js';
import { activityVia } from './migrations/0028_activity_via.js';
import { oauth } from './migrations/0029_oauth.js';
import { oauthClientUse } from './migrations/0030_oauth_client_use.js';

/** Every migration in order. Names sort lexically; never rename or edit one that has shipped. */
function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_initial': initialSchema(dialect),
    '0002_events': eventsOutbox(dialect),
    '0003_sessions': sessions(),
    '0004_task_list_order': taskListOrder(),
    '0005_list_item_filters': listItemFilters(),
    '0006_api_key_expiry': apiKeyExpiry(),
    '0007_rate_limit_counters': rateLimitCounters(dialect),
    '0008_idempotency_keys': idempotencyKeys(),
    '0009_search_statistics': searchStatistics(dialect),
    '0010_session_expiry_index': sessionExpiryIndex(),
    '0011_title_search_index': titleSearchIndex(dialect),
    '0012_task_activity_and_comments': taskActivityAndComments(dialect),
    '0013_webhooks': webhooks(dialect),
    '0014_invitations': invitations(),
    '0015_shared_lists': sharedLists(),
    '0016_team_setup': teamSetup(),
    '0017_labels': labels(dialect),
    '0018_full_text_search': fullTextSearch(dialect),
    '0019_views_and_task_sorts': viewsAndTaskSorts(dialect),
    '0020_list_audiences': listAudiences(dialect),
    '0021_notifications': notifications(dialect),
    '0022_mail': mail(dialect),
    '0023_reminders': reminders(dialect),
    '0024_attachments': attachments(dialect),
    '0025_exports': exports(dialect),
    '0026_imports': imports(dialect),
    '0027_key_scopes': keyScopes(),
    '0028_activity_via': activityVia(),
    '0029_oauth': oauth(),
    '0030_oauth_client_use': oauthClientUse(),
  };
}

/** The name of every migration this release knows, oldest first: a database at the latest schema has run exactly these. */
export function migrationNames(dialect: DialectName): string[] {
  return Object.keys(migrations(dialect));
}

/** Brings the database up to the latest schema; a no-op when it already is. */
export async function migrateToLatest(store: Store): Promise<void> {
  if (store.dialect === 'postgres') return runMigrator(store);
  // Kysely's migrator takes no lock on SQLite, so two processes starting on a new file at once
  // (two `tasklane admin` commands, say) both ran 0001 and one failed ("table already exists").
  // `begin immediate` takes the file's one write lock first: the second waits (busy_timeout),
  // then finds every migration done. SQLite's DDL is transactional, so a failure undoes it all.
  await sql`begin immediate`.execute(store.db);
  try {
    await runMigrator(store);
  } catch (error) {
    await sql`rollback`.execute(store.db).catch(() => {});
    throw error;
  }
  await sql`commit`.execute(store.db);
}

async function runMigrator(store: Store): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(store.dialect) };
  const migrator = new Migrator({ db: store.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const name = failed ? ` (migration ${failed.migrationName})` : '';
    throw new Error(`Database migration failed${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
