/**
 * The command palette (Ctrl/⌘+K, or typing in the top bar's search box): one field that finds
 * tasks by the words of their titles, descriptions and comments (GET /v1/search), and places to
 * go (My tasks, the caller's lists, Settings) by name. Keyboard only if one likes: ↑/↓ choose,
 * Enter goes, Escape closes. The choices are a listbox the field controls (aria-activedescendant),
 * so focus stays in the field while one types.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import type { SearchHit } from '@contract';
import { messageOf } from '../api/client';
import { hasWords, searchTasks } from '../api/search';
import { navigate } from '../lib/router';
import { Dialog } from '../ui/Dialog';
import { useTeamData } from './team-data';

interface Choice {
  href: string;
  label: string;
  detail?: ComponentChildren;
}

/** Waits this long after the last key before searching: one request per pause, not per key. */
const TYPING_PAUSE_MS = 150;
const FIELD_NAMES = { title: 'Title', description: 'Description', comment: 'Comment' } as const;

/**
 * A snippet's text with its matched words (between U+0002 and U+0003, docs/api.md) as <mark>:
 * text nodes only, never HTML, so nothing in a task's text can become markup.
 */
export function Snippet({ text }: { text: string }) {
  return (
    <>
      {text.split('\u0002').map((part, i) => {
        if (i === 0) return part;
        const [marked, rest] = part.split('\u0003');
        return [<mark key={i}>{marked}</mark>, rest];
      })}
    </>
  );
}

type Found = { q: string; hits?: SearchHit[]; error?: string };

/** The search's latest answer for `q` (after a pause in typing); older answers never win. */
function useSearch(q: string): Found & { loading: boolean } {
  const [found, setFound] = useState<Found>({ q: '' });
  useEffect(() => {
    if (!hasWords(q)) return;
    let current = true;
    const timer = setTimeout(() => {
      searchTasks(q).then(
        (page) => current && setFound({ q, hits: page.items }),
        (error: unknown) => current && setFound({ q, error: messageOf(error) }),
      );
    }, TYPING_PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [q]);
  return hasWords(q) ? { ...(found.q === q ? found : { q }), loading: found.q !== q } : { q, loading: false };
}

export function CommandPalette({ initial, onClose }: { initial: string; onClose: () => void }) {
  const [q, setQ] = useState(initial);
  const [active, setActive] = useState(0);
  const { lists } = useTeamData();
  const found = useSearch(q.trim());
  const ids = useId();

  const name = q.trim().toLowerCase();
  const places: Choice[] = [
    { href: '/', label: 'My tasks' },
    ...(lists ?? []).map((list) => ({ href: `/lists/${list.id}`, label: list.name })),
    { href: '/settings', label: 'Settings' },
  ].filter((place) => place.label.toLowerCase().includes(name));
  const tasks: Choice[] = (found.hits ?? []).map((hit) => ({
    href: `/tasks/${hit.task.id}`,
    label: `#${hit.task.number} ${hit.task.title}`,
    detail: (
      <>
        <span class="palette-field">{FIELD_NAMES[hit.field]}</span> <Snippet text={hit.snippet} />
      </>
    ),
  }));
  const choices = [...tasks, ...places];
  const chosen = Math.min(active, choices.length - 1);
  useEffect(() => setActive(0), [q, found.hits]);

  const go = (choice: Choice | undefined) => {
    if (!choice) return;
    onClose();
    navigate(choice.href);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    if (step !== 0 && choices.length > 0) {
      event.preventDefault();
      setActive((chosen + step + choices.length) % choices.length);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      go(choices[chosen]);
    }
  };

  const optionId = (index: number) => `${ids}-option-${index}`;
  const group = (title: string, items: Choice[], offset: number) =>
    items.length > 0 && (
      <div role="group" aria-labelledby={`${ids}-${title}`}>
        <div id={`${ids}-${title}`} role="presentation" class="palette-heading">
          {title}
        </div>
        {items.map((choice, i) => (
          <div
            key={choice.href}
            id={optionId(offset + i)}
            role="option"
            aria-selected={offset + i === chosen}
            class="palette-option"
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => go(choice)}
          >
            <span class="palette-label">{choice.label}</span>
            {choice.detail && <span class="palette-detail">{choice.detail}</span>}
          </div>
        ))}
      </div>
    );

  let status = '';
  if (found.loading) status = 'Searching…';
  else if (found.error) status = `Search failed: ${found.error}`;
  else if (found.hits?.length === 0) status = `No task matches “${q.trim()}”.`;
  else if (!hasWords(q)) status = 'Type words to search tasks, or the name of a list.';

  return (
    <Dialog title="Search and go to" onClose={onClose}>
      <div class="palette">
        <input
          type="search"
          role="combobox"
          list={undefined}
          aria-label="Search tasks, lists and settings"
          aria-expanded="true"
          aria-controls={`${ids}-choices`}
          aria-autocomplete="list"
          aria-activedescendant={choices.length > 0 ? optionId(chosen) : undefined}
          autoFocus
          value={q}
          onInput={(event) => setQ(event.currentTarget.value)}
          onKeyDown={onKeyDown}
        />
        <p class={`palette-status${found.error ? ' palette-error' : ' muted'}`} role="status">
          {status}
        </p>
        <div id={`${ids}-choices`} role="listbox" aria-label="Results" class="palette-choices">
          {group('Tasks', tasks, 0)}
          {group('Go to', places, tasks.length)}
        </div>
        <p class="muted small">
          <kbd>↑</kbd> <kbd>↓</kbd> choose, <kbd>Enter</kbd> go, <kbd>Esc</kbd> close
        </p>
      </div>
    </Dialog>
  );
}
