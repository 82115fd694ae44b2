/**
 * Pages of the lists whose items can be large (activity, comments, webhook deliveries; docs/api.md,
 * "Page sizes"): at most `limit` items, and no more than MAX_PAGE_BYTES of JSON, so that no page
 * of any list costs the server (or its reader) more than about a megabyte, however large the
 * stored items are. The repositories already stop reading at about that many bytes
 * (storage/bounded-reads.ts); this measures what is actually sent and cuts the page there.
 */
import { MAX_PAGE_BYTES } from './contract/index.js';

/** A page of a list: its items, and whether more remain after them. */
export interface Page<T> {
  items: T[];
  more: boolean;
}

/**
 * The page made of `rows` (read in the list's order, at most `limit` + 1 of them, or fewer when
 * the read stopped at its byte budget; `found` is how many the read found before that stop), each
 * presented by `present`: at most `limit` items, the first always, then each next one only while
 * the JSON of the page stays within MAX_PAGE_BYTES. `more` when rows remain beyond the page.
 */
export function fillPage<R, T>(rows: readonly R[], found: number, limit: number, present: (row: R) => T): Page<T> {
  const items: T[] = [];
  let bytes = 2; // the brackets
  for (const row of rows) {
    if (items.length === limit) break;
    const item = present(row);
    // Each item and the comma before it; fast-json-stringify writes the same text JSON.stringify does.
    const size = Buffer.byteLength(JSON.stringify(item)) + (items.length > 0 ? 1 : 0);
    if (items.length > 0 && bytes + size > MAX_PAGE_BYTES) break;
    items.push(item);
    bytes += size;
  }
  return { items, more: found > items.length };
}
