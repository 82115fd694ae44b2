/**
 * Mentions in a comment or a description (issue 30; docs/api.md, "Notifications"). The text is
 * stored and published as sent; the server reads these forms in it, each after the start of the
 * text or a character that is not a letter, digit, `_`, `.` or `@` (so `ann@example.com` alone is
 * an email, not a mention):
 *
 * - `@ann@example.com`: the member with that email (any case);
 * - `@"Ann Lee"`: the member with that whole name (any case), quoted, spaces allowed;
 * - `@Ann`: the member whose whole name is that one word (letters, digits, `_`, `-`, `.`; a
 *   trailing `.` ends the sentence, not the name).
 *
 * A name two or more members share mentions none of them (their emails do). Mentions resolve to
 * user ids when the text is written; a later rename keeps them, and changes nothing of the text.
 */
import { listUsers } from '../team/users.repository.js';
import type { Db } from '../storage/schema.js';

const MENTION =
  /(?<![\p{L}\p{N}_.@])@(?:"([^"\n]{1,200})"|([^\s@"'`<>()[\]{},;:!?*]+@[^\s@"'`<>()[\]{},;:!?*]+)|([\p{L}\p{N}_.-]+))/gu;

/** The mentions written in `text`: emails and names, as written (names folded to lower case). */
export function mentionsIn(text: string | null | undefined): { emails: Set<string>; names: Set<string> } {
  const emails = new Set<string>();
  const names = new Set<string>();
  if (!text || !text.includes('@')) return { emails, names };
  for (const match of text.matchAll(MENTION)) {
    const [, quoted, email, word] = match;
    if (quoted !== undefined) names.add(quoted.trim().toLowerCase());
    else if (email !== undefined) emails.add(email.replace(/\.+$/, '').toLowerCase());
    else if (word !== undefined) {
      const name = word.replace(/\.+$/, '');
      if (name) names.add(name.toLowerCase());
    }
  }
  return { emails, names };
}

/** Whether `text` holds any mention: only then is a team's member list worth reading. */
export function hasMentions(text: string | null | undefined): boolean {
  const { emails, names } = mentionsIn(text);
  return emails.size > 0 || names.size > 0;
}

/**
 * The ids of the team's members the texts mention. Reads the team's members once, and only when
 * some text holds a mention.
 */
export async function mentionedMembers(
  db: Db,
  teamId: string,
  texts: (string | null | undefined)[],
): Promise<string[]> {
  const emails = new Set<string>();
  const names = new Set<string>();
  for (const text of texts) {
    const found = mentionsIn(text);
    for (const e of found.emails) emails.add(e);
    for (const n of found.names) names.add(n);
  }
  if (emails.size === 0 && names.size === 0) return [];
  const members = await listUsers(db, teamId);
  const byName = new Map<string, string[]>();
  for (const m of members) {
    const key = m.name.trim().toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), m.id]);
  }
  const ids = new Set<string>();
  for (const m of members) if (emails.has(m.email.toLowerCase())) ids.add(m.id);
  for (const name of names) {
    const holders = byName.get(name);
    if (holders?.length === 1) ids.add(holders[0]!);
  }
  return [...ids];
}
