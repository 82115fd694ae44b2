/**
 * Markdown to safe DOM. Loaded on demand (a dynamic import), so the markdown parser and the
 * sanitiser stay out of the initial bundle.
 *
 * markdown-it's "commonmark" preset renders strict CommonMark, raw HTML included, plus what people
 * write from GitHub: tables, ~~strikethrough~~ (markdown-it's own rules, off in that preset) and
 * `- [ ]` / `- [x]` task lists (the few lines of `taskLists` below). DOMPurify then removes
 * everything that could run code (scripts, event handlers, javascript: URLs, forms, styles). The
 * page's CSP (script-src 'self') is the second wall: even a sanitiser bug runs no inline script.
 */
import DOMPurify from 'dompurify';
import MarkdownIt, { type StateCore } from 'markdown-it';
import { isAttachmentImageSource } from './attachment-source';

const markdown = new MarkdownIt('commonmark').enable(['table', 'strikethrough']);
markdown.core.ruler.after('inline', 'task_lists', taskLists);

/**
 * A list item that starts with `[ ] ` or `[x] ` becomes a task: a disabled checkbox (it shows
 * the state, it does not change the description) named after the item's text.
 */
function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const [item, paragraph, inline] = [tokens[i - 2]!, tokens[i - 1]!, tokens[i]!];
    if (item.type !== 'list_item_open' || paragraph.type !== 'paragraph_open' || inline.type !== 'inline') continue;
    const first = inline.children?.[0];
    const marker = first?.type === 'text' ? /^\[([ xX])\](?:[ \t]+|$)/.exec(first.content) : null;
    if (!first || !marker) continue;
    first.content = first.content.slice(marker[0].length);
    const text = inline
      .children!.filter((child) => child.type === 'text' || child.type === 'code_inline')
      .map((child) => child.content)
      .join('')
      .trim();
    const box = new state.Token('html_inline', '', 0);
    box.content =
      `<input type="checkbox" class="task-list-item-checkbox" disabled` +
      `${marker[1] === ' ' ? '' : ' checked'} aria-label="${markdown.utils.escapeHtml(text || 'Task')}">`;
    inline.children!.unshift(box);
    item.attrJoin('class', 'task-list-item');
  }
}

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  // Links open elsewhere, and tell the target nothing about this page.
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
  // An image written as raw HTML without a text is passed over, not read out by its file name
  // (Markdown's own images always have one).
  if (node.tagName === 'IMG' && !node.hasAttribute('alt')) node.setAttribute('alt', '');
  // A task's attachment (`![shot.png](/v1/attachments/12/content)`) shows inline, fetched with the
  // session cookie when scrolled to, and fits the column. Other images are left as they were.
  const source = node.tagName === 'IMG' ? node.getAttribute('src') : null;
  if (source !== null && isAttachmentImageSource(source, location.origin)) {
    node.setAttribute('loading', 'lazy');
    node.setAttribute('class', 'attachment-image');
  }
});

/** The only inputs a description keeps: disabled checkboxes (task list items), with nothing but their state. */
const KEPT_INPUT_ATTRIBUTES = new Set(['type', 'class', 'checked', 'disabled', 'aria-label']);

export function renderMarkdown(source: string): DocumentFragment {
  const fragment = DOMPurify.sanitize(markdown.render(source), {
    RETURN_DOM_FRAGMENT: true,
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'button', 'textarea', 'select', 'iframe'],
    FORBID_ATTR: ['style'],
  });
  // Raw HTML may hold inputs too: whatever they are, they leave as disabled checkboxes or not at all.
  for (const input of fragment.querySelectorAll('input')) {
    if (input.type !== 'checkbox') {
      input.remove();
      continue;
    }
    for (const name of input.getAttributeNames()) if (!KEPT_INPUT_ATTRIBUTES.has(name)) input.removeAttribute(name);
    input.disabled = true;
  }
  return fragment;
}
