/** Full-text search of the tasks the caller may read (GET /v1/search; docs/api.md, "Search"). */
import { get } from './client';
import type { SearchPage } from '@contract';

/** Hits one look in the palette shows: enough to choose from, few enough to read. */
const PALETTE_HITS = 8;

export const searchTasks = (q: string): Promise<SearchPage> =>
  get<SearchPage>('/v1/search', new URLSearchParams({ q, limit: String(PALETTE_HITS) }));

/** Whether the server would find words in `q` (it answers 400 when there are none). */
export const hasWords = (q: string) => /[\p{L}\p{N}]/u.test(q);
