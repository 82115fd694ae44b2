/**
 * The key scopes as Settings explains them (docs/api.md, "Scoped API keys"). Written here rather
 * than imported from the contract, whose values would bring its schema library into the bundle;
 * `satisfies` holds the names to the contract's.
 */
import type { KeyScope, TaskList } from '@contract';

export const SCOPE_HELP = {
  'tasks:read': 'Read tasks, their comments, activity and attachments; search.',
  'tasks:write': 'Create, change and delete tasks and their attachments.',
  'comments:write': 'Comment, and edit or delete comments.',
  'lists:read': 'See lists and their members.',
  'lists:write': 'Create, change and archive lists; add and remove their members.',
  'team:read': 'See the team’s members, statuses and labels.',
} satisfies Record<KeyScope, string>;

export const SCOPES = Object.keys(SCOPE_HELP) as KeyScope[];

/** What a key may do, in a few words: "Full access" for a key without scopes. */
export const scopesText = (scopes: readonly string[] | null): string =>
  scopes === null ? 'Full access' : scopes.join(', ');

/** The lists a key is limited to, by name where the reader knows them: "All lists" without a limit. */
export function listsText(listIds: readonly number[] | null, lists: readonly TaskList[] | undefined): string {
  if (listIds === null) return 'All lists';
  return listIds.map((id) => lists?.find((list) => list.id === id)?.name ?? `List ${id}`).join(', ');
}
