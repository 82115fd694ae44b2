/**
 * Unsent comments, kept in this browser (localStorage) so a reload or a closed tab loses
 * nothing: one draft per person and task, removed when it is sent or emptied, and all of them
 * when the person signs out (the next person at this computer does not find them).
 */

const PREFIX = 'tasklane.comment-draft.';
const keyOf = (userId: string, taskId: number) => `${PREFIX}${userId}.${taskId}`;

// Storage can be unavailable (switched off, or full): the composer then works without drafts.
function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export function readDraft(userId: string, taskId: number): string {
  try {
    return storage()?.getItem(keyOf(userId, taskId)) ?? '';
  } catch {
    return '';
  }
}

/** Keeps `text` as the draft; an empty text removes it. */
export function writeDraft(userId: string, taskId: number, text: string): void {
  try {
    if (text.trim()) storage()?.setItem(keyOf(userId, taskId), text);
    else storage()?.removeItem(keyOf(userId, taskId));
  } catch {
    // full or refused: the text stays on screen, only not across a reload
  }
}

/** Removes every draft kept in this browser. */
export function clearAllDrafts(): void {
  const store = storage();
  if (!store) return;
  try {
    const keys = Array.from({ length: store.length }, (_, i) => store.key(i)).filter((key) => key?.startsWith(PREFIX));
    for (const key of keys) store.removeItem(key!);
  } catch {
    // nothing to clear
  }
}
