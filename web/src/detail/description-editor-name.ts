/**
 * Who saved the description a conflict is about, as its banner names them: the newest entry of
 * the task's activity that changed the description (the API records its actor). Pure, for tests.
 */
import type { ActivityEntry } from '@contract';

/** "Ben Okafor", "You, in another window", "An administrator"; null when the entries do not say. */
export function descriptionEditorName(entries: ActivityEntry[], userId: string): string | null {
  const entry = entries.find((candidate) => candidate.changes.description !== undefined);
  if (!entry) return null;
  if (!entry.actor) return 'An administrator'; // a change made with `tasklane admin`
  return entry.actor.id === userId ? 'You, in another window,' : entry.actor.name;
}
