/**
 * The app's keyboard shortcuts, and the overlay (?) that lists them. One keydown listener on the
 * document finds what a key acts on by data attributes the pages put on it, so a page opts in
 * by marking its elements: `data-shortcut="search" | "new-task" | "toggle-layout"`, a task's
 * link `data-task-link` inside its `data-task-id` container, and its status control
 * `data-status-control`. The board handles its own arrow keys first (board/Board.tsx).
 *
 * A shortcut never fires while one types (an input, a textarea, a select, editable text), with
 * Ctrl, Alt or Meta held, while a dialog is open, or inside an open menu.
 */
import { Dialog } from '../ui/Dialog';

interface Shortcut {
  keys: string[];
  what: string;
}

export const SHORTCUT_GROUPS: Array<{ title: string; shortcuts: Shortcut[] }> = [
  {
    title: 'Anywhere',
    shortcuts: [
      { keys: ['?'], what: 'Show these shortcuts' },
      { keys: ['Ctrl+K', '⌘K'], what: 'Search tasks, or go to a list or Settings' },
      { keys: ['/'], what: 'Search task titles' },
      { keys: ['N'], what: 'New task' },
      { keys: ['B'], what: 'Show a list or My tasks as a board, or as a list again' },
    ],
  },
  {
    title: 'Tasks, in a list or on a board',
    shortcuts: [
      { keys: ['J', '↓'], what: 'Next task' },
      { keys: ['K', '↑'], what: 'Previous task' },
      { keys: ['O', 'Enter'], what: 'Open the task' },
      { keys: ['S'], what: 'Change its status' },
    ],
  },
  {
    title: 'On a board',
    shortcuts: [
      { keys: ['H', '←'], what: 'The card in the column to the left' },
      { keys: ['L', '→'], what: 'The card in the column to the right' },
      { keys: ['Home', 'End'], what: 'First or last card of the column' },
      { keys: ['Shift+←'], what: 'Move the card to the previous column' },
      { keys: ['Shift+→'], what: 'Move the card to the next column' },
    ],
  },
];

/** Whether keys pressed here are typing (a text field, a select, editable text). */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement)
    return true;
  return (
    target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(target.type)
  );
}

/** Ctrl+K (⌘K on a Mac): the command palette, even while one types, unless another dialog is open. */
export function isPaletteKey(event: KeyboardEvent): boolean {
  return (
    (event.ctrlKey || event.metaKey) &&
    !event.altKey &&
    !event.shiftKey &&
    event.key.toLowerCase() === 'k' &&
    !document.querySelector('dialog[open]')
  );
}

/** Acts on a keydown at the document; `showHelp` opens the overlay. */
export function onShortcutKey(event: KeyboardEvent, showHelp: () => void): void {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
  if (isTyping(event.target) || document.querySelector('dialog[open]')) return;
  if (event.target instanceof Element && event.target.closest('[role="menu"]')) return;
  const main = document.getElementById('main');
  const active = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const marked = (name: string) => main?.querySelector<HTMLElement>(`[data-shortcut="${name}"]`);
  const key = event.key;
  if (event.shiftKey && key !== '?') return;

  let done = true;
  if (key === '?') showHelp();
  else if (key === '/' || key === 'n') done = focus(marked(key === '/' ? 'search' : 'new-task'));
  else if (key === 'b') done = click(marked('toggle-layout'));
  else if (key === 'j' || key === 'k' || key === 'ArrowDown' || key === 'ArrowUp') {
    const links = [...(main?.querySelectorAll<HTMLElement>('[data-task-link]') ?? [])];
    const at = active ? links.indexOf(active) : -1;
    // The arrows move between tasks once one has the focus; elsewhere they scroll as usual.
    if (at === -1 && key.startsWith('Arrow')) return;
    const step = key === 'j' || key === 'ArrowDown' ? 1 : -1;
    const next = links[at === -1 ? 0 : Math.max(0, Math.min(links.length - 1, at + step))];
    done = focus(next);
    next?.scrollIntoView({ block: 'nearest' });
  } else if (key === 'o') done = active?.matches('[data-task-link]') ? click(active) : false;
  else if (key === 's') {
    // The focused task's status, or on a task's own page, that task's.
    const task = active?.closest('[data-task-id]') ?? main?.querySelector('article[data-task-id]');
    const control = task?.querySelector<HTMLElement>('[data-status-control]');
    done = click(control?.matches('button') ? control : control?.querySelector('button'));
  } else done = false;
  if (done) event.preventDefault();
}

const focus = (element: HTMLElement | null | undefined) => (element ? (element.focus(), true) : false);
const click = (element: HTMLElement | null | undefined) => (element ? (element.click(), true) : false);

/** The overlay: every shortcut, by where it works. */
export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <div class="shortcuts">
        {SHORTCUT_GROUPS.map((group) => (
          <section key={group.title} aria-label={group.title}>
            <h3>{group.title}</h3>
            <dl>
              {group.shortcuts.map((shortcut) => (
                <div key={shortcut.what}>
                  <dt>
                    {shortcut.keys.map((key, index) => (
                      <span key={key}>
                        {index > 0 && <span class="muted"> or </span>}
                        <kbd>{key}</kbd>
                      </span>
                    ))}
                  </dt>
                  <dd>{shortcut.what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
        <p class="muted small">Shortcuts do nothing while you type in a field. Escape closes this.</p>
      </div>
    </Dialog>
  );
}
