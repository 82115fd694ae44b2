/**
 * A CommonMark text with Write and Preview tabs (the preview is sanitised like every rendering).
 * Typing `@` offers the team's members (arrows to choose, Enter or Tab to insert, Escape to
 * close), written as the server reads a mention (mentions.ts).
 */
import { useCallback, useId, useRef, useState } from 'preact/hooks';
import type { Member } from '@contract';
import { useTeamData } from '../app/team-data';
import { MarkdownView } from './MarkdownView';
import { insertMention, mentionCandidates, mentionQueryAt, mentionText, type MentionQuery } from './mentions';
import { focusOnMount } from '../ui/focus';

interface Props {
  /** The text box's accessible name. */
  label: string;
  value: string;
  onInput: (value: string) => void;
  /** Ctrl+Enter (⌘+Enter): send or save. */
  onSubmit: () => void;
  maxLength: number;
  rows?: number;
  placeholder?: string;
  /** Focus the text box when it appears (an editor opened by a button). */
  focus?: boolean;
  readOnly?: boolean;
}

export function MarkdownField({
  label,
  value,
  onInput,
  onSubmit,
  maxLength,
  rows = 5,
  placeholder,
  focus,
  readOnly,
}: Props) {
  const [tab, setTab] = useState<'write' | 'preview'>('write');
  const { members } = useTeamData();
  const box = useRef<HTMLTextAreaElement | null>(null);
  // Stable, so that Preact calls it when the box appears, not on every render (which would refocus it).
  const attach = useCallback(
    (element: HTMLTextAreaElement | null) => {
      box.current = element;
      if (focus) focusOnMount(element);
    },
    [focus],
  );
  const listId = useId();
  const [picking, setPicking] = useState<{ query: MentionQuery; choices: Member[]; active: number } | null>(null);

  /** Looks at the text before the caret: a mention being typed opens (or updates) the picker. */
  const look = (element: HTMLTextAreaElement) => {
    const query =
      element.selectionStart === element.selectionEnd ? mentionQueryAt(element.value, element.selectionStart) : null;
    const choices = query ? mentionCandidates(members, query.text) : [];
    setPicking(query && choices.length > 0 ? { query, choices, active: 0 } : null);
  };

  const choose = (member: Member) => {
    const element = box.current;
    if (!element || !picking) return;
    const next = insertMention(element.value, picking.query, element.selectionStart, mentionText(member, members));
    onInput(next.value);
    setPicking(null);
    // After Preact has written the new value: put the caret after the mention.
    requestAnimationFrame(() => {
      element.focus();
      element.setSelectionRange(next.caret, next.caret);
    });
  };

  return (
    <div class="markdown-field">
      <div class="tabs" role="group" aria-label="Editor view">
        <button type="button" class="tab" aria-pressed={tab === 'write'} onClick={() => setTab('write')}>
          Write
        </button>
        <button type="button" class="tab" aria-pressed={tab === 'preview'} onClick={() => setTab('preview')}>
          Preview
        </button>
      </div>
      {tab === 'write' ? (
        <div class="mention-anchor">
          <label class="field">
            <span class="sr-only">{label}</span>
            <textarea
              rows={rows}
              value={value}
              ref={attach}
              maxLength={maxLength}
              placeholder={placeholder}
              readOnly={readOnly}
              aria-autocomplete="list"
              aria-controls={picking ? listId : undefined}
              aria-activedescendant={picking ? `${listId}-${picking.active}` : undefined}
              onInput={(event) => {
                onInput(event.currentTarget.value);
                look(event.currentTarget);
              }}
              onClick={(event) => look(event.currentTarget)}
              onBlur={() => setPicking(null)}
              onKeyDown={(event) => {
                if (picking) {
                  const count = picking.choices.length;
                  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
                    event.preventDefault();
                    const step = event.key === 'ArrowDown' ? 1 : count - 1;
                    return setPicking({ ...picking, active: (picking.active + step) % count });
                  }
                  if (event.key === 'Enter' || event.key === 'Tab') {
                    event.preventDefault();
                    return choose(picking.choices[picking.active]!);
                  }
                  if (event.key === 'Escape') {
                    event.preventDefault();
                    event.stopPropagation();
                    return setPicking(null);
                  }
                }
                if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                  event.preventDefault();
                  onSubmit();
                }
              }}
            />
          </label>
          {picking && (
            <ul class="mention-picker" id={listId} role="listbox" aria-label="Mention a member">
              {picking.choices.map((member, i) => (
                <li
                  key={member.id}
                  id={`${listId}-${i}`}
                  role="option"
                  aria-selected={i === picking.active}
                  // Before the text box's blur, which would close the list first.
                  onMouseDown={(event) => {
                    event.preventDefault();
                    choose(member);
                  }}
                >
                  {member.name} <span class="muted small">{member.email}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <div class="preview">
          <MarkdownView source={value} emptyText="Nothing to preview." label="Preview" />
        </div>
      )}
    </div>
  );
}
