/**
 * The `@` mention being typed in a text, and the text a chosen member is written as, in the forms
 * the server reads (docs/api.md, "Notifications": `@Ann`, `@"Ann Lee"`, `@ann@example.com`).
 */
import type { Member } from '@contract';

/** The `@…` being typed just before the caret: where its `@` is and what follows it so far. */
export interface MentionQuery {
  start: number;
  text: string;
}

/** The mention being typed before `caret`, if any: an `@` at the start or after a non-word character, then no space. */
export function mentionQueryAt(value: string, caret: number): MentionQuery | null {
  const before = value.slice(0, caret);
  const match = /(^|[^\p{L}\p{N}_.@])@([^\s@"]*)$/u.exec(before);
  if (!match) return null;
  return { start: caret - match[2]!.length - 1, text: match[2]! };
}

/** Up to `limit` members whose name (any word of it) or email starts with the query, case ignored. */
export function mentionCandidates(members: readonly Member[], query: string, limit = 6): Member[] {
  const q = query.toLowerCase();
  const matches = (member: Member) =>
    member.email.startsWith(q) ||
    member.name
      .toLowerCase()
      .split(/\s+/)
      .some((word) => word.startsWith(q));
  return members.filter(matches).slice(0, limit);
}

/** How `member` is written so the server finds exactly them: by one-word name, quoted name, or email. */
export function mentionText(member: Member, members: readonly Member[]): string {
  const sameName = members.filter((m) => m.name.toLowerCase() === member.name.toLowerCase()).length > 1;
  if (sameName || member.name.includes('"')) return `@${member.email}`;
  return /^[\p{L}\p{N}_.-]+$/u.test(member.name) && !member.name.endsWith('.')
    ? `@${member.name}`
    : `@"${member.name}"`;
}

/** `value` with the query replaced by the member's mention and a space; and where the caret goes. */
export function insertMention(
  value: string,
  query: MentionQuery,
  caret: number,
  mention: string,
): { value: string; caret: number } {
  const inserted = `${mention} `;
  return { value: value.slice(0, query.start) + inserted + value.slice(caret), caret: query.start + inserted.length };
}
