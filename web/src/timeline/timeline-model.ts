/**
 * The timeline's data, without the screen: which activity entries and comments are held, how a
 * fresh page joins them, and how the two become one list ordered by time.
 *
 * Activity is the spine. It pages newest first (`before` an entry id), while comments page oldest
 * first (`after` a comment id), so comments are fetched for the stretch of time the loaded
 * activity covers: every comment has its `comment.created` entry, and comment ids grow with
 * time, so the lowest comment id created in that stretch is where its comments start. Once the
 * whole activity is loaded, every comment is.
 */
import type { ActivityEntry, Comment, Person } from '@contract';
import type { Page } from '../api/client';

export type TimelineItem =
  | { type: 'activity'; key: string; at: number; entry: ActivityEntry }
  | { type: 'comment'; key: string; at: number; comment: Comment };

/** The activity held: newest first, and whether older entries remain on the server. */
export interface LoadedActivity {
  entries: ActivityEntry[];
  hasOlder: boolean;
}

/** The comment a `comment.*` entry is about (its id on either side of the change). */
export function commentIdOf(entry: ActivityEntry): number | null {
  return entry.changes.commentId?.to ?? entry.changes.commentId?.from ?? null;
}

/**
 * Joins the newest page (just fetched, newest first; `more` when older entries remain, which the
 * server says, as a page cut by its size holds fewer entries than asked for) to what is held. If
 * the page reaches what is held, the older entries stay; if more happened meanwhile than a page
 * holds, the held entries are dropped (they are no longer next to the newest) and older ones
 * load on demand.
 */
export function joinNewest(held: LoadedActivity, page: Page<ActivityEntry>): LoadedActivity {
  const entries = page.items;
  if (!page.more || entries.length === 0) return { entries, hasOlder: false };
  const oldestOfPage = entries[entries.length - 1]!.id;
  const newestHeld = held.entries[0]?.id;
  if (newestHeld === undefined || oldestOfPage > newestHeld) return { entries, hasOlder: true };
  return { entries: [...entries, ...held.entries.filter((entry) => entry.id < oldestOfPage)], hasOlder: held.hasOlder };
}

/** Adds an older page (fetched `before` the oldest entry held). */
export function joinOlder(held: LoadedActivity, page: Page<ActivityEntry>): LoadedActivity {
  const oldestHeld = held.entries[held.entries.length - 1]?.id ?? Infinity;
  return {
    entries: [...held.entries, ...page.items.filter((entry) => entry.id < oldestHeld)],
    hasOlder: page.more,
  };
}

/**
 * The comments that belong with the activity held: `{ from: id }` (from that comment id on),
 * `{ from: undefined }` (all of them: the whole activity is held), or null (none: no comment was
 * made in the stretch held).
 */
export function commentsToFetch(activity: LoadedActivity): { from: number | undefined } | null {
  if (!activity.hasOlder) return { from: undefined };
  const created = activity.entries.filter((entry) => entry.kind === 'comment.created').map(commentIdOf);
  const ids = created.filter((id): id is number => id !== null);
  return ids.length ? { from: Math.min(...ids) } : null;
}

/** Who wrote each comment the timeline knows of: from the comments, and from entries of comments since deleted. */
export function commentAuthors(entries: readonly ActivityEntry[], comments: readonly Comment[]): Map<number, Person> {
  const authors = new Map<number, Person>();
  for (const entry of entries) {
    const id = commentIdOf(entry);
    if (entry.kind === 'comment.created' && id !== null && entry.actor) authors.set(id, entry.actor);
  }
  for (const comment of comments) authors.set(comment.id, comment.author);
  return authors;
}

/**
 * Entries and comments as one list, oldest first. A comment stands for its own `comment.created`
 * entry; the entry of a comment since deleted is left out too, as its `comment.deleted` entry
 * says what happened.
 */
export function buildTimeline(entries: readonly ActivityEntry[], comments: readonly Comment[]): TimelineItem[] {
  const items: TimelineItem[] = [];
  for (const entry of entries) {
    if (entry.kind === 'comment.created') continue;
    items.push({ type: 'activity', key: `a${entry.id}`, at: Date.parse(entry.createdAt), entry });
  }
  for (const comment of comments) {
    items.push({ type: 'comment', key: `c${comment.id}`, at: Date.parse(comment.createdAt), comment });
  }
  return items.sort((a, b) => a.at - b.at || idOf(a) - idOf(b));
}

/** Within the same millisecond: entries, then comments, each in the order they were made. */
const idOf = (item: TimelineItem) => (item.type === 'activity' ? item.entry.id : 2 ** 32 + item.comment.id);
