/**
 * CommonMark to safe DOM. Loaded on demand (a dynamic import), so the markdown parser and the
 * sanitiser stay out of the initial bundle.
 *
 * markdown-it's "commonmark" preset renders strict CommonMark, raw HTML included; DOMPurify
 * then removes everything that could run code (scripts, event handlers, javascript: URLs, forms,
 * styles). The page's CSP (script-src 'self') is the second wall: even a sanitiser bug runs no
 * inline script.
 */
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt('commonmark');

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  // Links open elsewhere, and tell the target nothing about this page.
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

export function renderMarkdown(source: string): DocumentFragment {
  return DOMPurify.sanitize(markdown.render(source), {
    RETURN_DOM_FRAGMENT: true,
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe'],
    FORBID_ATTR: ['style'],
  });
}
