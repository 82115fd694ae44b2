/** A CommonMark text with Write and Preview tabs (the preview is sanitised like every rendering). */
import { useState } from 'preact/hooks';
import { MarkdownView } from './MarkdownView';
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
        <label class="field">
          <span class="sr-only">{label}</span>
          <textarea
            rows={rows}
            value={value}
            ref={focus ? focusOnMount : undefined}
            maxLength={maxLength}
            placeholder={placeholder}
            readOnly={readOnly}
            onInput={(event) => onInput(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                event.preventDefault();
                onSubmit();
              }
            }}
          />
        </label>
      ) : (
        <div class="preview">
          <MarkdownView source={value} emptyText="Nothing to preview." label="Preview" />
        </div>
      )}
    </div>
  );
}
