/**
 * The `Error-Detail` response header: where the spec fixes a 400's body (`Invalid input.`,
 * `listId must be a number.`), the precise reason travels here instead, so the body stays the
 * spec's word for word and a client (and a person with curl) still learns what to fix.
 */

/** Longest header value sent: a reason is a sentence, and a header is no place for an essay. */
const MAX_LENGTH = 500;

/**
 * `text` as a header value that Node will send and every client reads alike: printable ASCII
 * only. Anything else (a CR or LF that would split the header, non-Latin-1 text Node refuses,
 * Latin-1 that clients decode differently) is written as a `\uXXXX` escape, as JSON would; a
 * reason may quote what a client sent (a query parameter's name), so this must hold for any text.
 */
export function asHeaderValue(text: string): string {
  let value = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    value += code >= 0x20 && code <= 0x7e ? text[i] : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return value.length > MAX_LENGTH ? `${value.slice(0, MAX_LENGTH - 3)}...` : value;
}
