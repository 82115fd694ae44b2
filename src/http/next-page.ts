/**
 * The answer of a size-capped list (src/pages.ts): the page's items and, when more remain, a
 * `Link` header (RFC 8288) to the next page: this request with the list's own cursor moved past
 * the last item. A client that pages by its cursor as before reads everything; one that stopped
 * at a page shorter than `limit` should follow the header instead, as a page may now be cut short
 * by its size.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NEXT_PAGE_HEADER } from '../contract/common.js';
import type { Page } from '../pages.js';

/** The page's items, with the header naming the next page when there is one (`cursor`: the list's cursor parameter). */
export function sendPage<T extends { id: number }>(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page<T>,
  cursor: string,
): T[] {
  const last = page.items[page.items.length - 1];
  if (page.more && last) linkNextPage(request, reply, cursor, String(last.id));
  return page.items;
}

/** Names the next page: this request with its `cursor` parameter set to `value`. */
export function linkNextPage(request: FastifyRequest, reply: FastifyReply, cursor: string, value: string): void {
  // Only the path and query matter; the base is needed to parse them and is not sent.
  const next = new URL(request.url, 'http://localhost');
  next.searchParams.set(cursor, value);
  reply.header(NEXT_PAGE_HEADER, `<${next.pathname}${next.search}>; rel="next"`);
}
