/** The team's imports (issue 32): upload a file for its plan, apply it, follow it, cancel or undo it. */
import type { Import, ImportList } from '@contract';
import { ApiError, get, post } from './client';

export const fetchImports = () => get<ImportList>('/v1/imports');

export const fetchImport = (importId: number) => get<Import>(`/v1/imports/${importId}`);

export const importAction = (importId: number, action: 'apply' | 'cancel' | 'undo') =>
  post<Import>(`/v1/imports/${importId}/${action}`);

/**
 * Sends the file as `multipart/form-data` (`source`, for a CSV `columns`, then `file`) and answers
 * the planned import. Fails with an ApiError holding the server's `{"error"}` message.
 * `csrfToken`: the session's, taken as an argument so the first-load client module stays as it is.
 */
export async function uploadImport(
  source: string,
  file: File,
  columns: Record<string, string> | null,
  csrfToken: string,
): Promise<Import> {
  const form = new FormData();
  form.append('source', source);
  if (columns) form.append('columns', JSON.stringify(columns));
  form.append('file', file, file.name);
  let response: Response;
  try {
    response = await fetch('/v1/imports', {
      method: 'POST',
      headers: { accept: 'application/json', 'x-csrf-token': csrfToken },
      body: form,
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'The upload did not reach the server. Check your connection and try again.');
  }
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
  if (response.ok) return body as Import;
  throw new ApiError(
    response.status,
    typeof body?.error === 'string' ? body.error : `The server answered ${response.status}.`,
    response.headers.get('error-detail'),
  );
}
