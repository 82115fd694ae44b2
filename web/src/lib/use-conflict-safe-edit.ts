/**
 * The editing of a text that others may change meanwhile, with no lost update
 * (conflict-safe-edit.ts has the rules): the description editor and a comment's editor both run
 * on it, and differ only in what they read, write and show.
 *
 * The draft is never dropped: a refused save (412) keeps it beside the text saved meanwhile
 * (`state.kind === 'conflict'`, shown with ui/ConflictResolver), and a text deleted meanwhile
 * keeps it on screen for the component to offer what it can (`onGone`).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api/client';
import { editFrom, isOpen, savedOver, seen, type EditState, type Shown, type Version } from './conflict-safe-edit';

interface Options {
  /** The text on screen now, followed live (conflict-safe-edit.ts: `seen`). */
  shown: Shown;
  /** Reads the version the server has now: to start from, and to show once a save is refused. */
  fetchLatest: () => Promise<Version>;
  /** Saves `text` with If-Match `ifMatch`: the server refuses it (412) when the text changed since. */
  write: (text: string, ifMatch: string | null) => Promise<void>;
  /** Refuses a text before it is sent: the message to show, or null to send it. */
  check?: (text: string) => string | null;
  /** The server no longer has the text (404). Without it, that is an error like any other. */
  onGone?: () => void;
  /** After each save, whether it was saved or not. */
  onSettled?: () => void;
}

export interface ConflictSafeEdit {
  state: EditState;
  /** The person's text, kept until it is saved or they give it up. */
  draft: string;
  setDraft: (text: string) => void;
  busy: boolean;
  error: string | null;
  /** Opens the editor on `from`, the version on screen, or without it on the server's latest. */
  start: (from?: Version) => Promise<void>;
  /** Saves `text` over the version being edited, or, in a conflict, over the one saved meanwhile. */
  save: (text: string) => Promise<void>;
  /** Closes the editor (Cancel, Discard): the draft is given up. */
  stop: () => void;
}

const isStatus = (failure: unknown, status: number) => failure instanceof ApiError && failure.status === status;

export function useConflictSafeEdit({
  shown,
  fetchLatest,
  write,
  check,
  onGone,
  onSettled,
}: Options): ConflictSafeEdit {
  const [state, setState] = useState<EditState>({ kind: 'view' });
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => setState((current) => seen(current, shown)), [shown.text, shown.etag]);

  const failed = (failure: unknown) => {
    if (onGone && isStatus(failure, 404)) onGone();
    else setError(messageOf(failure));
  };

  const open = (from: Version) => {
    setDraft(from.text);
    setState(editFrom(from));
  };

  const start = async (from?: Version) => {
    setError(null);
    if (from) return open(from);
    setState({ kind: 'opening' });
    try {
      open(await fetchLatest());
    } catch (failure) {
      setState({ kind: 'view' });
      failed(failure);
    }
  };

  const save = async (text: string) => {
    if (!isOpen(state)) return;
    const refused = check?.(text);
    if (refused) return setError(refused);
    setBusy(true);
    setError(null);
    // What is being saved is the draft from now on: whatever the answer, it is what is kept.
    setDraft(text);
    try {
      await write(text, savedOver(state));
      setState({ kind: 'view' });
    } catch (failure) {
      if (isStatus(failure, 412)) {
        try {
          setState({ kind: 'conflict', theirs: await fetchLatest() });
        } catch (reloadFailure) {
          failed(reloadFailure);
        }
      } else {
        failed(failure);
      }
    }
    setBusy(false);
    onSettled?.();
  };

  return { state, draft, setDraft, busy, error, start, save, stop: () => setState({ kind: 'view' }) };
}
