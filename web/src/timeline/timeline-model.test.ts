/**
 * How the timeline is put together (timeline-model.ts): pages of activity joined newest and older
 * (the server's `Link` says whether more remain, as a page may be cut by its size), the comments
 * to fetch for the stretch of time held, and entries and comments in one list.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ActivityEntry } from '@contract';
import type { Page } from '../api/client';
import {
  buildTimeline,
  commentAuthors,
  commentsToFetch,
  joinNewest,
  joinOlder,
  type LoadedActivity,
} from './timeline-model';
import { ada, ben, comment, entry } from './test-support';

describe('the timeline joins pages of activity and comments', () => {
  /** Entries with these ids, newest first. */
  const page = (...ids: number[]) => ids.map((id) => ({ ...entry(ada, 'task.updated'), id }));
  /** A page of entries with these ids; `more`: the server named a next page. */
  const answer = (more: boolean, ...ids: number[]): Page<ActivityEntry> => ({ items: page(...ids), more });
  const ids = (activity: LoadedActivity) => activity.entries.map((e) => e.id);

  test('a fresh newest page that reaches what is held keeps the older entries', () => {
    const held = { entries: page(5, 4, 3), hasOlder: true };
    const joined = joinNewest(held, answer(true, 7, 6, 5));
    assert.deepEqual(ids(joined), [7, 6, 5, 4, 3]);
    assert.equal(joined.hasOlder, true);
  });

  test('a newest page that names no next page is the whole activity, however few entries it holds', () => {
    const joined = joinNewest({ entries: page(2, 1), hasOlder: false }, answer(false, 3, 2, 1));
    assert.deepEqual(ids(joined), [3, 2, 1]);
    assert.equal(joined.hasOlder, false, 'nothing older to offer');
  });

  test('a newest page cut short by its size, that names a next page, offers older entries', () => {
    const joined = joinNewest({ entries: [], hasOlder: false }, answer(true, 9));
    assert.deepEqual(ids(joined), [9]);
    assert.equal(joined.hasOlder, true, 'one entry of the fifty asked for, and more remain');
  });

  test('when more happened meanwhile than a page holds, the held entries are dropped, not shown with a gap', () => {
    const joined = joinNewest({ entries: page(3, 2, 1), hasOlder: false }, answer(true, 9, 8, 7));
    assert.deepEqual(ids(joined), [9, 8, 7]);
    assert.equal(joined.hasOlder, true, 'the dropped ones load again as older');
  });

  test('an older page goes after what is held; one that names no next page is the last', () => {
    const more = joinOlder({ entries: page(9, 8), hasOlder: true }, answer(true, 7, 6));
    assert.deepEqual(ids(more), [9, 8, 7, 6]);
    assert.equal(more.hasOlder, true);
    const last = joinOlder(more, answer(false, 5, 4));
    assert.deepEqual(ids(last), [9, 8, 7, 6, 5, 4]);
    assert.equal(last.hasOlder, false);
  });

  test('comments are fetched for the stretch of time the activity held covers', () => {
    const created = (commentId: number) => entry(ada, 'comment.created', { commentId: { from: null, to: commentId } });
    assert.deepEqual(commentsToFetch({ entries: [created(4)], hasOlder: false }), { from: undefined }, 'all');
    assert.deepEqual(
      commentsToFetch({
        // An edit of an older comment does not widen the stretch: only comments made in it count.
        entries: [created(12), entry(ada, 'comment.updated', { commentId: { from: 3, to: 3 } }), created(9)],
        hasOlder: true,
      }),
      { from: 9 },
    );
    assert.equal(commentsToFetch({ entries: page(3, 2), hasOlder: true }), null, 'none made in it');
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
    const items = buildTimeline(
      [deleted, deletedCreated, moved, commented, made],
      [comment(1, ben, '2026-11-20T10:05:00.000Z')],
    );
    assert.deepEqual(
      items.map((item) => (item.type === 'comment' ? `comment ${item.comment.id}` : item.entry.kind)),
      ['task.created', 'comment 1', 'task.updated', 'comment.deleted'],
    );
    const authors = commentAuthors([deleted, deletedCreated, commented], [comment(1, ben, made.createdAt)]);
    assert.equal(authors.get(2)?.name, 'Ben Okafor', 'a deleted comment’s author is known from its entry');
  });
});
