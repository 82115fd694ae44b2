/**
 * Editing a text that others may change meanwhile (a task's description, a comment) with no lost
 * update: the rules, apart from the screen (use-conflict-safe-edit.ts runs them in a component).
 *
 * An edit remembers the version it started from, its text and ETag, and saves with If-Match on
 * it, so the server refuses (412) a save over a version that has moved on. Both texts are then put
 * side by side (a conflict), and the text the person keeps is saved over the version they have
 * now seen.
 */

/** A saved version of the text: the text and its ETag (null when the server sent none). */
export interface Version {
  text: string;
  etag: string | null;
}

/**
 * The text as the page shows it now, which live updates change. With its ETag when the page
 * has one (a task's page does; a comment in the timeline's list carries none).
 */
export interface Shown {
  text: string;
  etag?: string | null;
}

export type EditState =
  | { kind: 'view' }
  /** Reading the latest version, which the edit will start from. */
  | { kind: 'opening' }
  /** `changedMeanwhile`: another text was saved since `base`, and the person has been told. */
  | { kind: 'edit'; base: Version; changedMeanwhile: boolean }
  /** A save was refused: `theirs` is the version saved meanwhile, which the next save goes over. */
  | { kind: 'conflict'; theirs: Version };

export const editFrom = (base: Version): EditState => ({ kind: 'edit', base, changedMeanwhile: false });

/**
 * What a version shown live does to the edit. The same text (a teammate changed the status, say)
 * is no conflict: the edit moves forward to that version, so its save is not refused. Another
 * text is announced at once, before the save meets the 412. During a conflict, the saved side
 * follows what is shown, so the text kept is saved over the version on screen. Without an ETag
 * the edit cannot move forward: the change can only be announced, and the save learns the rest.
 */
export function seen(state: EditState, shown: Shown): EditState {
  if (state.kind === 'edit') {
    if (shown.text !== state.base.text) return { ...state, changedMeanwhile: true };
    if (shown.etag === undefined) return state;
    return { ...state, base: { text: shown.text, etag: shown.etag } };
  }
  if (state.kind === 'conflict' && shown.etag !== undefined) {
    return { kind: 'conflict', theirs: { text: shown.text, etag: shown.etag } };
  }
  return state;
}

/** The states with a text to save. */
export type Open = Extract<EditState, { kind: 'edit' | 'conflict' }>;

export const isOpen = (state: EditState): state is Open => state.kind === 'edit' || state.kind === 'conflict';

/** The version a save goes over (its If-Match): the one started from, or the one saved meanwhile. */
export const savedOver = (state: Open): string | null => (state.kind === 'edit' ? state.base.etag : state.theirs.etag);

/** Both texts in one, the saved one first: what "Combine both" starts from. */
export const combine = (theirs: string, mine: string) => `${theirs.trimEnd()}\n\n${mine.trim()}\n`;
