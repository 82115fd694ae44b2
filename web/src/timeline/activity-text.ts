/**
 * An activity entry as a sentence a person reads: "Ada changed the due date from 30 Nov to
 * 5 Dec", "Bo moved this to Done", "You assigned Ben Okafor and removed this from Launch".
 *
 * Pure: the entry and what the reader knows go in, parts of a sentence come out (plain text,
 * names to emphasise, links), so the timeline draws it and the unit tests read it as text.
 * Lists are named only as the entry names them: the API has already left out every list the
 * reader is not a member of, so nothing here can name one.
 */
import type { ActivityChanges, ActivityEntry, Person, Priority } from '@contract';

/** A piece of a sentence: plain text, a name or value to emphasise, or a link. */
export type Part = string | { strong: string } | { text: string; href: string };

export interface Reader {
  /** The reader's user id: their own changes read "You …", and they are "you" in others'. */
  userId: string;
  /** A due date (YYYY-MM-DD) as the reader reads it: "5 Dec". */
  formatDate: (date: string) => string;
  /** A priority's name: "High". */
  priorityLabel: (priority: Priority) => string;
  /** Who wrote a comment, when the timeline knows (its `comment.created` entry, or the comment itself). */
  commentAuthor?: (commentId: number) => Person | undefined;
  /** Whether the comment is on screen, so a sentence about it can link to it. */
  commentShown?: (commentId: number) => boolean;
  /** A task's number and title by id ("#12 Book the venue"), when the reader knows it. */
  taskName?: (taskId: number) => string | undefined;
}

/** The id of the DOM element that shows a comment, for links to it. */
export const commentAnchor = (commentId: number) => `comment-${commentId}`;

/** "A", "A and B", "A, B and C", as parts. */
export function joinParts(items: Part[][]): Part[] {
  return items.flatMap((item, i) => {
    if (i === 0) return item;
    return [i === items.length - 1 ? ' and ' : ', ', ...item];
  });
}

/** The sentence as plain text (for tests, and for places that take only text). */
export function plainText(parts: readonly Part[]): string {
  return parts.map((part) => (typeof part === 'string' ? part : 'strong' in part ? part.strong : part.text)).join('');
}

/** The entry as a sentence: who, then what they did (each change of the entry, joined). */
export function describeEntry(entry: ActivityEntry, reader: Reader): Part[] {
  const actor = entry.actor;
  const subject: Part =
    actor === null ? 'An administrator' : actor.id === reader.userId ? 'You' : { strong: actor.name };
  const what = joinParts(predicates(entry, reader));
  return [subject, ' ', ...what];
}

/** What the entry's actor did, one phrase per kind of change. */
function predicates(entry: ActivityEntry, reader: Reader): Part[][] {
  const self = selfOf(entry, reader);
  const commentId = entry.changes.commentId?.from ?? entry.changes.commentId?.to ?? null;
  switch (entry.kind) {
    case 'task.created':
      return [['created this task']];
    case 'comment.created':
      return [['commented']];
    case 'comment.updated':
      return [['edited ', ...commentLink(`${self.possessive} comment`, commentId, reader)]];
    case 'comment.deleted':
      return [['deleted ', ...deletedComment(entry, commentId, reader, self)]];
    case 'attachment.added':
      return [['attached ', { strong: entry.changes.attachment?.to?.name ?? 'a file' }]];
    case 'attachment.removed':
      return [['removed the file ', { strong: entry.changes.attachment?.from?.name ?? 'a file' }]];
    default: {
      const phrases = changePhrases(entry.changes, reader, self);
      // Every change was to lists the reader cannot see: the task changed, and nothing more is said.
      return phrases.length ? phrases : [['changed this task']];
    }
  }
}

/** How the actor refers to themself: "yourself"/"your" for the reader's own entries. */
interface Self {
  id: string | null;
  reflexive: string;
  possessive: string;
}

function selfOf(entry: ActivityEntry, reader: Reader): Self {
  const id = entry.actor?.id ?? null;
  return id === reader.userId
    ? { id, reflexive: 'yourself', possessive: 'your' }
    : { id, reflexive: 'themselves', possessive: 'their' };
}

function commentLink(text: string, commentId: number | null, reader: Reader): Part[] {
  if (commentId !== null && reader.commentShown?.(commentId)) return [{ text, href: `#${commentAnchor(commentId)}` }];
  return [text];
}

/** "their comment", "a comment by Ben Okafor", "a comment by you", or "a comment" when the author is not known. */
function deletedComment(entry: ActivityEntry, commentId: number | null, reader: Reader, self: Self): Part[] {
  const author = commentId === null ? undefined : reader.commentAuthor?.(commentId);
  if (!author) return ['a comment'];
  if (author.id === self.id) return [`${self.possessive} comment`];
  return ['a comment by ', personName(author, reader)];
}

function personName(person: Person, reader: Reader): Part {
  return person.id === reader.userId ? 'you' : { strong: person.name };
}

/** A person of an assignee change: the actor is "themselves", the reader "you". */
function assigneeName(person: Person, reader: Reader, self: Self): Part {
  return person.id === self.id ? self.reflexive : personName(person, reader);
}

const quoted = (text: string): Part => ({ strong: `“${text}”` });

/** The phrases of a task.updated entry, in the order a person scans a task: state first, text last. */
function changePhrases(changes: ActivityChanges, reader: Reader, self: Self): Part[][] {
  const phrases: Part[][] = [];
  const { status, title, assignees, taskLists, labels, dueDate, priority, parentId, description } = changes;

  if (status) phrases.push(['moved this to ', { strong: status.to.name }]);
  if (title) phrases.push(['renamed this from ', quoted(title.from), ' to ', quoted(title.to)]);

  if (assignees) {
    const { added, removed } = difference(assignees.from, assignees.to, (person) => person.id);
    const names = (people: Person[]) => joinParts(people.map((person) => [assigneeName(person, reader, self)]));
    if (added.length) phrases.push(['assigned ', ...names(added)]);
    if (removed.length) phrases.push(['unassigned ', ...names(removed)]);
  }

  if (taskLists) {
    const { added, removed } = difference(taskLists.from, taskLists.to, (list) => list.id);
    if (added.length) phrases.push(['added this to ', ...strongNames(added)]);
    if (removed.length) phrases.push([`removed ${added.length ? 'it' : 'this'} from `, ...strongNames(removed)]);
  }

  if (labels) {
    const { added, removed } = difference(labels.from, labels.to, (label) => label.id);
    if (added.length) phrases.push([`added the label${added.length > 1 ? 's' : ''} `, ...strongNames(added)]);
    if (removed.length) phrases.push([`removed the label${removed.length > 1 ? 's' : ''} `, ...strongNames(removed)]);
  }

  if (dueDate) {
    const { from, to } = dueDate;
    const date = (value: string): Part => ({ strong: reader.formatDate(value) });
    if (from === null && to !== null) phrases.push(['set the due date to ', date(to)]);
    else if (from !== null && to === null) phrases.push(['removed the due date (it was ', date(from), ')']);
    else if (from !== null && to !== null) phrases.push(['changed the due date from ', date(from), ' to ', date(to)]);
  }

  if (priority) {
    const { from, to } = priority;
    const label = (value: Priority): Part => ({ strong: reader.priorityLabel(value) });
    if (from === null && to !== null) phrases.push(['set the priority to ', label(to)]);
    else if (from !== null && to === null) phrases.push(['removed the priority (it was ', label(from), ')']);
    else if (from !== null && to !== null) phrases.push(['changed the priority from ', label(from), ' to ', label(to)]);
  }

  if (parentId) {
    const { from, to } = parentId;
    const task = (id: number): Part => ({ text: reader.taskName?.(id) ?? 'another task', href: `/tasks/${id}` });
    if (from === null && to !== null) phrases.push(['made this a subtask of ', task(to)]);
    else if (from !== null && to === null) phrases.push(['made this a top-level task']);
    else if (from !== null && to !== null) phrases.push(['moved this under ', task(to)]);
  }

  if (description) {
    const { from, to } = description;
    if (!from) phrases.push(['added a description']);
    else if (!to) phrases.push(['removed the description']);
    else phrases.push(['edited the description']);
  }
  return phrases;
}

/** Lists' or labels' names, in bold: "Launch and Research". */
const strongNames = (items: { name: string }[]) => joinParts(items.map((item) => [{ strong: item.name }]));

/** What is in `to` and not `from` (added), and the other way round (removed), in their order. */
function difference<T>(from: readonly T[], to: readonly T[], key: (item: T) => unknown) {
  const before = new Set(from.map(key));
  const after = new Set(to.map(key));
  return {
    added: to.filter((item) => !before.has(key(item))),
    removed: from.filter((item) => !after.has(key(item))),
  };
}
