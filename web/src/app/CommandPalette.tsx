/**
 * The command palette (Ctrl/⌘+K, or typing in the top bar's search box): one field that finds
 * tasks by the words of their titles, descriptions and comments (GET /v1/search), and places to
 * go (My tasks, the caller's lists, Settings) by name. ↑/↓ choose, Enter goes, Escape closes.
 * The choices are a listbox the field controls (aria-activedescendant), so focus stays in the
 * field while one types.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import type { SearchHit } from '@contract';
import { messageOf } from '../api/client';
import { hasWords, searchTasks } from '../api/search';
import { navigate } from '../lib/router';
import { Dialog } from '../ui/Dialog';
import { useTeamData } from './team-data';

/**
 * A snippet with its matched words (between U+0002 and U+0003, docs/api.md) as <mark>: text
 * nodes only, never HTML, so nothing in a task's text can become markup.
 */
const snippet = (text: string) =>
  text
    .replaceAll('\u0003', '\u0002')
    .split('\u0002')
    .map((part, i) => (i % 2 ? <mark key={i}>{part}</mark> : part));

/** The latest answer for `q`, searched after a pause in typing (one request per pause, not per key). */
function useSearch(q: string): { q: string; hits?: SearchHit[]; error?: string } {
  const [found, setFound] = useState<{ q: string; hits?: SearchHit[]; error?: string }>({ q: '' });
  useEffect(() => {
    if (!hasWords(q)) return;
    let current = true;
    const timer = setTimeout(
      () =>
        searchTasks(q).then(
          (page) => current && setFound({ q, hits: page.items }),
          (error: unknown) => current && setFound({ q, error: messageOf(error) }),
        ),
      150,
    );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [q]);
  return found.q === q ? found : { q };
}

export function CommandPalette({ initial, onClose }: { initial: string; onClose: () => void }) {
  const [text, setText] = useState(initial);
  const [active, setActive] = useState(0);
  const { lists } = useTeamData();
  const q = text.trim();
  // Untrimmed: a space after the last word makes it whole (docs/api.md, "Search").
  const found = useSearch(text);
  const id = useId();

  const places = [
    { href: '/', label: 'My tasks' },
    ...(lists ?? []).map((list) => ({ href: `/lists/${list.id}`, label: list.name })),
    { href: '/settings', label: 'Settings' },
  ].filter((place) => place.label.toLowerCase().includes(q.toLowerCase()));
  const choices = [
    ...(found.hits ?? []).map((hit) => ({
      href: `/tasks/${hit.task.id}`,
      label: `#${hit.task.number} ${hit.task.title}`,
      detail: [<b key="field">{hit.field}</b>, ' ', snippet(hit.snippet)],
    })),
    ...places.map((place) => ({ ...place, detail: 'Go to' })),
  ];
  const chosen = Math.min(active, choices.length - 1);
  useEffect(() => setActive(0), [text, found.hits]);

  const go = (href?: string) => {
    if (!href) return;
    onClose();
    navigate(href);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
    if (step && choices.length > 0) setActive((chosen + step + choices.length) % choices.length);
    else if (event.key === 'Enter') go(choices[chosen]?.href);
    else return;
    event.preventDefault();
  };

  const status = !hasWords(q)
    ? 'Type words to search tasks, or the name of a list.'
    : found.error
      ? `Search failed: ${found.error}`
      : !found.hits
        ? 'Searching…'
        : found.hits.length === 0 && `No task matches “${q}”.`;

  return (
    <Dialog title="Search and go to" onClose={onClose}>
      <input
        // Not type=search: there Escape first clears the text, and here it closes the palette.
        type="text"
        role="combobox"
        list={undefined}
        class="palette-field"
        aria-label="Search tasks, lists and settings"
        aria-expanded="true"
        aria-controls={id}
        aria-autocomplete="list"
        aria-activedescendant={choices.length > 0 ? `${id}-${chosen}` : undefined}
        autoFocus
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <p class={found.error ? 'palette-status palette-error' : 'palette-status muted'} role="status">
        {status}
      </p>
      <div id={id} role="listbox" aria-label="Results" class="palette-choices">
        {choices.map((choice, i) => (
          <div
            key={choice.href}
            id={`${id}-${i}`}
            role="option"
            aria-selected={i === chosen}
            class="palette-option"
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => go(choice.href)}
          >
            {choice.label} <span class="palette-detail">{choice.detail}</span>
          </div>
        ))}
      </div>
    </Dialog>
  );
}
