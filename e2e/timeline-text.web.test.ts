/**
 * The web app's timeline without a browser: activity entries as sentences
 * (web/src/timeline/activity-text.ts), relative times (relative-time.ts), and how pages of
 * activity and comments join into one list (timeline-model.ts). The modules are the app's own
 * TypeScript, loaded through Vite's module runner (support/web-module.ts).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ActivityChanges, ActivityEntry, ActivityKind, Comment, Person, Priority } from '../src/contract/index.js';
import { importWebModule } from './support/web-module.js';

type Part = string | { strong: string } | { text: string; href: string };
interface Reader {
  userId: string;
  formatDate: (date: string) => string;
  priorityLabel: (priority: Priority) => string;
  commentAuthor?: (commentId: number) => Person | undefined;
  commentShown?: (commentId: number) => boolean;
  taskName?: (taskId: number) => string | undefined;
}
interface ActivityText {
  describeEntry(entry: ActivityEntry, reader: Reader): Part[];
  plainText(parts: readonly Part[]): string;
}
interface RelativeTime {
  relativeTime(iso: string, now: number, locale?: string): string;
}
interface LoadedActivity {
  entries: ActivityEntry[];
  hasOlder: boolean;
}
/** A page as the API client reads it: `more` when the answer named a next page. */
interface Page {
  items: ActivityEntry[];
  more: boolean;
}
type TimelineItem = { type: 'activity'; entry: ActivityEntry } | { type: 'comment'; comment: Comment };
interface TimelineModel {
  joinNewest(held: LoadedActivity, page: Page): LoadedActivity;
  joinOlder(held: LoadedActivity, page: Page): LoadedActivity;
  commentsToFetch(activity: LoadedActivity): { from: number | undefined } | null;
  commentAuthors(entries: readonly ActivityEntry[], comments: readonly Comment[]): Map<number, Person>;
  buildTimeline(entries: readonly ActivityEntry[], comments: readonly Comment[]): TimelineItem[];
}

const ada: Person = { id: 'u-ada', name: 'Ada Lovelace', email: 'ada@example.test' };
const bo: Person = { id: 'u-bo', name: 'Bo Chen', email: 'bo@example.test' };
const ben: Person = { id: 'u-ben', name: 'Ben Okafor', email: 'ben@example.test' };
const cy: Person = { id: 'u-cy', name: 'Cy Park', email: 'cy@example.test' };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** The reader is Ben; dates read "30 Nov" whatever the machine's locale. */
const reader: Reader = {
  userId: ben.id,
  formatDate: (date) => {
    const [, month, day] = date.split('-').map(Number) as [number, number, number];
    return `${day} ${MONTHS[month - 1]}`;
  },
  priorityLabel: (priority) => priority[0]!.toUpperCase() + priority.slice(1),
};

let nextId = 1;
function entry(
  actor: Person | null,
  kind: ActivityKind,
  changes: ActivityChanges = {},
  createdAt = '2026-11-20T10:00:00.000Z',
): ActivityEntry {
  return { id: nextId++, taskId: 7, actor, kind, changes, createdAt, shortened: false };
}
function comment(id: number, author: Person, createdAt: string, body = 'Hello'): Comment {
  return { id, taskId: 7, author, body, createdAt, updatedAt: createdAt };
}

describe('activity entries read as sentences', () => {
  let text: ActivityText;
  before(async () => {
    text = await importWebModule<ActivityText>('src/timeline/activity-text.ts');
  });
  const say = (e: ActivityEntry, who: Reader = reader) => text.plainText(text.describeEntry(e, who));

  test('a moved due date names both dates', () => {
    assert.equal(
      say(entry(ada, 'task.updated', { dueDate: { from: '2026-11-30', to: '2026-12-05' } })),
      'Ada Lovelace changed the due date from 30 Nov to 5 Dec',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { dueDate: { from: null, to: '2026-12-05' } })),
      'Ada Lovelace set the due date to 5 Dec',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { dueDate: { from: '2026-12-05', to: null } })),
      'Ada Lovelace removed the due date (it was 5 Dec)',
    );
  });

  test('a status change says where the task moved', () => {
    assert.equal(
      say(entry(bo, 'task.updated', { status: { from: { id: 1, name: 'To do' }, to: { id: 3, name: 'Done' } } })),
      'Bo Chen moved this to Done',
    );
  });

  test('the reader’s own changes read "You", and the reader is "you" in others’', () => {
    assert.equal(say(entry(ben, 'task.created')), 'You created this task');
    assert.equal(
      say(entry(ada, 'task.updated', { assignees: { from: [], to: [ben, cy] } })),
      'Ada Lovelace assigned you and Cy Park',
    );
  });

  test('assignees added and removed are named, the actor as "themselves"', () => {
    assert.equal(
      say(entry(ada, 'task.updated', { assignees: { from: [ada, bo], to: [bo, cy] } })),
      'Ada Lovelace assigned Cy Park and unassigned themselves',
    );
    assert.equal(say(entry(ben, 'task.updated', { assignees: { from: [], to: [ben] } })), 'You assigned yourself');
  });

  test('lists attached and detached are named by the names the entry holds', () => {
    const launch = { id: 1, name: 'Launch' };
    const research = { id: 2, name: 'Research' };
    assert.equal(
      say(entry(ada, 'task.updated', { taskLists: { from: [research], to: [launch] } })),
      'Ada Lovelace added this to Launch and removed it from Research',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { taskLists: { from: [launch, research], to: [] } })),
      'Ada Lovelace removed this from Launch and Research',
    );
  });

  test('an entry whose only change was to lists the reader cannot see names no list: the task changed', () => {
    // The API leaves such a change out of `changes` (docs/api.md, hidden lists).
    assert.equal(say(entry(ada, 'task.updated', {})), 'Ada Lovelace changed this task');
  });

  test('several changes in one entry make one sentence, state first', () => {
    assert.equal(
      say(
        entry(ada, 'task.updated', {
          priority: { from: 'low', to: 'high' },
          status: { from: { id: 1, name: 'To do' }, to: { id: 2, name: 'Doing' } },
          title: { from: 'Posters', to: 'Print posters' },
        }),
      ),
      'Ada Lovelace moved this to Doing, renamed this from “Posters” to “Print posters” and changed the priority from Low to High',
    );
  });

  test('priority, description and parent changes each have their words', () => {
    assert.equal(
      say(entry(ada, 'task.updated', { priority: { from: null, to: 'urgent' } })),
      'Ada Lovelace set the priority to Urgent',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { priority: { from: 'low', to: null } })),
      'Ada Lovelace removed the priority (it was Low)',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { description: { from: null, to: 'Hi' } })),
      'Ada Lovelace added a description',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { description: { from: 'Hi', to: 'Hello' } })),
      'Ada Lovelace edited the description',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { description: { from: 'Hi', to: null } })),
      'Ada Lovelace removed the description',
    );
    const known = { ...reader, taskName: (id: number) => (id === 3 ? '#3 Plan the launch' : undefined) };
    const parts = text.describeEntry(entry(ada, 'task.updated', { parentId: { from: null, to: 3 } }), known);
    assert.equal(text.plainText(parts), 'Ada Lovelace made this a subtask of #3 Plan the launch');
    assert.deepEqual(parts.at(-1), { text: '#3 Plan the launch', href: '/tasks/3' }, 'the parent is a link');
    assert.equal(
      say(entry(ada, 'task.updated', { parentId: { from: 4, to: 9 } })),
      'Ada Lovelace moved this under another task',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { parentId: { from: 3, to: null } })),
      'Ada Lovelace made this a top-level task',
    );
  });

  test('comments edited and deleted say whose comment, and link to one still shown', () => {
    const known: Reader = {
      ...reader,
      commentAuthor: (id) => ({ 10: ada, 11: ben, 12: cy })[id],
      commentShown: (id) => id === 10,
    };
    const edited = text.describeEntry(entry(ada, 'comment.updated', { commentId: { from: 10, to: 10 } }), known);
    assert.equal(text.plainText(edited), 'Ada Lovelace edited their comment');
    assert.deepEqual(edited.at(-1), { text: 'their comment', href: '#comment-10' });
    assert.equal(
      say(entry(cy, 'comment.deleted', { commentId: { from: 11, to: null } }), known),
      'Cy Park deleted a comment by you',
    );
    assert.equal(
      say(entry(ada, 'comment.deleted', { commentId: { from: 12, to: null } }), known),
      'Ada Lovelace deleted a comment by Cy Park',
    );
    assert.equal(
      say(entry(ben, 'comment.deleted', { commentId: { from: 11, to: null } }), known),
      'You deleted your comment',
    );
    assert.equal(
      say(entry(cy, 'comment.deleted', { commentId: { from: 99, to: null } }), known),
      'Cy Park deleted a comment',
      'an author the timeline does not know is not guessed',
    );
  });

  test('an operator’s change (no actor) reads "An administrator"', () => {
    assert.equal(
      say(entry(null, 'task.updated', { status: { from: { id: 1, name: 'Old' }, to: { id: 2, name: 'New' } } })),
      'An administrator moved this to New',
    );
  });

  test('names are parts to emphasise, not text to parse', () => {
    const parts = text.describeEntry(entry(ada, 'task.updated', { title: { from: '<b>x</b>', to: 'y' } }), reader);
    assert.deepEqual(parts[0], { strong: 'Ada Lovelace' });
    assert.ok(parts.some((part) => typeof part === 'object' && 'strong' in part && part.strong === '“<b>x</b>”'));
  });
});

describe('relative times', () => {
  let time: RelativeTime;
  before(async () => {
    time = await importWebModule<RelativeTime>('src/timeline/relative-time.ts');
  });
  const now = Date.parse('2026-12-05T12:00:00.000Z');
  const before_ = (ms: number) => new Date(now - ms).toISOString();
  const MINUTE = 60_000;

  test('counts minutes, hours and days, then gives the date', () => {
    assert.equal(time.relativeTime(before_(20_000), now), 'just now');
    assert.equal(
      time.relativeTime(before_(-5_000), now),
      'just now',
      'a server clock slightly ahead is not "in 5 seconds"',
    );
    assert.equal(time.relativeTime(before_(MINUTE), now), '1 minute ago');
    assert.equal(time.relativeTime(before_(5 * MINUTE + 10_000), now), '5 minutes ago');
    assert.equal(time.relativeTime(before_(3 * 60 * MINUTE), now), '3 hours ago');
    assert.equal(time.relativeTime(before_(25 * 60 * MINUTE), now), 'yesterday');
    assert.equal(time.relativeTime(before_(3 * 24 * 60 * MINUTE), now), '3 days ago');
    assert.equal(time.relativeTime('2026-11-20T12:00:00.000Z', now, 'en-GB'), '20 Nov');
    assert.equal(time.relativeTime('2025-11-20T12:00:00.000Z', now, 'en-GB'), '20 Nov 2025', 'another year is named');
  });
});

describe('the timeline joins pages of activity and comments', () => {
  let model: TimelineModel;
  before(async () => {
    model = await importWebModule<TimelineModel>('src/timeline/timeline-model.ts');
  });
  /** Entries with these ids, newest first. */
  const page = (...ids: number[]) => ids.map((id) => ({ ...entry(ada, 'task.updated'), id }));
  /** A page of entries with these ids; `more`: the server named a next page. */
  const answer = (more: boolean, ...ids: number[]): Page => ({ items: page(...ids), more });
  const ids = (activity: LoadedActivity) => activity.entries.map((e) => e.id);

  test('a fresh newest page that reaches what is held keeps the older entries', () => {
    const held = { entries: page(5, 4, 3), hasOlder: true };
    const joined = model.joinNewest(held, answer(true, 7, 6, 5));
    assert.deepEqual(ids(joined), [7, 6, 5, 4, 3]);
    assert.equal(joined.hasOlder, true);
  });

  test('a newest page that names no next page is the whole activity, however few entries it holds', () => {
    const joined = model.joinNewest({ entries: page(2, 1), hasOlder: false }, answer(false, 3, 2, 1));
    assert.deepEqual(ids(joined), [3, 2, 1]);
    assert.equal(joined.hasOlder, false, 'nothing older to offer');
  });

  test('a newest page cut short by its size, that names a next page, offers older entries', () => {
    const joined = model.joinNewest({ entries: [], hasOlder: false }, answer(true, 9));
    assert.deepEqual(ids(joined), [9]);
    assert.equal(joined.hasOlder, true, 'one entry of the fifty asked for, and more remain');
  });

  test('when more happened meanwhile than a page holds, the held entries are dropped, not shown with a gap', () => {
    const joined = model.joinNewest({ entries: page(3, 2, 1), hasOlder: false }, answer(true, 9, 8, 7));
    assert.deepEqual(ids(joined), [9, 8, 7]);
    assert.equal(joined.hasOlder, true, 'the dropped ones load again as older');
  });

  test('an older page goes after what is held; one that names no next page is the last', () => {
    const more = model.joinOlder({ entries: page(9, 8), hasOlder: true }, answer(true, 7, 6));
    assert.deepEqual(ids(more), [9, 8, 7, 6]);
    assert.equal(more.hasOlder, true);
    const last = model.joinOlder(more, answer(false, 5, 4));
    assert.deepEqual(ids(last), [9, 8, 7, 6, 5, 4]);
    assert.equal(last.hasOlder, false);
  });

  test('comments are fetched for the stretch of time the activity held covers', () => {
    const created = (commentId: number) => entry(ada, 'comment.created', { commentId: { from: null, to: commentId } });
    assert.deepEqual(model.commentsToFetch({ entries: [created(4)], hasOlder: false }), { from: undefined }, 'all');
    assert.deepEqual(
      model.commentsToFetch({
        // An edit of an older comment does not widen the stretch: only comments made in it count.
        entries: [created(12), entry(ada, 'comment.updated', { commentId: { from: 3, to: 3 } }), created(9)],
        hasOlder: true,
      }),
      { from: 9 },
    );
    assert.equal(model.commentsToFetch({ entries: page(3, 2), hasOlder: true }), null, 'none made in it');
  });

  test('entries and comments make one list by time; a comment stands for its own entry', () => {
    const made = entry(ada, 'task.created', {}, '2026-11-20T10:00:00.000Z');
    const commented = entry(ben, 'comment.created', { commentId: { from: null, to: 1 } }, '2026-11-20T10:05:00.000Z');
    const moved = entry(ada, 'task.updated', {}, '2026-11-20T10:10:00.000Z');
    const deletedCreated = entry(
      ben,
      'comment.created',
      { commentId: { from: null, to: 2 } },
      '2026-11-20T10:11:00.000Z',
    );
    const deleted = entry(ben, 'comment.deleted', { commentId: { from: 2, to: null } }, '2026-11-20T10:12:00.000Z');
    const items = model.buildTimeline(
      [deleted, deletedCreated, moved, commented, made],
      [comment(1, ben, '2026-11-20T10:05:00.000Z')],
    );
    assert.deepEqual(
      items.map((item) => (item.type === 'comment' ? `comment ${item.comment.id}` : item.entry.kind)),
      ['task.created', 'comment 1', 'task.updated', 'comment.deleted'],
    );
    const authors = model.commentAuthors([deleted, deletedCreated, commented], [comment(1, ben, made.createdAt)]);
    assert.equal(authors.get(2)?.name, 'Ben Okafor', 'a deleted comment’s author is known from its entry');
  });
});
