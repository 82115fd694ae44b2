/** Activity entries as sentences (activity-text.ts), read by one reader: Ben. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ActivityEntry } from '@contract';
import { describeEntry, plainText, type Reader } from './activity-text';
import { ada, ben, bo, cy, entry } from './test-support';

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

describe('activity entries read as sentences', () => {
  const say = (e: ActivityEntry, who: Reader = reader) => plainText(describeEntry(e, who));

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

  test('labels added and removed are named as the entry holds them (as named at the change)', () => {
    const bug = { id: 1, name: 'Bug' };
    const urgent = { id: 2, name: 'Urgent' };
    assert.equal(
      say(entry(ada, 'task.updated', { labels: { from: [bug], to: [urgent] } })),
      'Ada Lovelace added the label Urgent and removed the label Bug',
    );
    assert.equal(
      say(entry(ada, 'task.updated', { labels: { from: [], to: [bug, urgent] } })),
      'Ada Lovelace added the labels Bug and Urgent',
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
    const parts = describeEntry(entry(ada, 'task.updated', { parentId: { from: null, to: 3 } }), known);
    assert.equal(plainText(parts), 'Ada Lovelace made this a subtask of #3 Plan the launch');
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
    const edited = describeEntry(entry(ada, 'comment.updated', { commentId: { from: 10, to: 10 } }), known);
    assert.equal(plainText(edited), 'Ada Lovelace edited their comment');
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
    const parts = describeEntry(entry(ada, 'task.updated', { title: { from: '<b>x</b>', to: 'y' } }), reader);
    assert.deepEqual(parts[0], { strong: 'Ada Lovelace' });
    assert.ok(parts.some((part) => typeof part === 'object' && 'strong' in part && part.strong === '“<b>x</b>”'));
  });
});
