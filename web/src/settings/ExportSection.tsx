/**
 * Settings → Import and export (a chunk of its own, loaded when Settings opens; issue 32). The
 * export: start an export of the team (owners and admins: all of it; a member: what they can
 * read), follow it while the server writes it, and download the file (gzip'd JSON Lines,
 * docs/export-format.md) while it is kept. Exports send no events, so the list is read again every
 * few seconds while one is on its way. The import (owners and admins only) is imports/ImportPart.tsx,
 * in this chunk; `live` (useLiveEvent, from SettingsPage) is for it.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Export } from '@contract';
import { exportFileUrl, fetchExports, startExport } from '../api/exports';
import { messageOf } from '../api/client';
import type { useLiveEvent } from '../app/live';
import { useSession } from '../app/session-context';
import { humanSize } from '../detail/attachment-files';
import { useAsync } from '../lib/use-async';
import { ErrorNote } from '../ui/ErrorNote';
import { ImportPart } from './imports/ImportPart';

/** How often the list is read again while an export is pending or running. */
const FOLLOW_MS = 2_000;

const inProgress = (item: Export) => item.status === 'pending' || item.status === 'running';

export function ExportSection({ live }: { live: typeof useLiveEvent }) {
  const { role } = useSession().session;
  const manager = role === 'owner' || role === 'admin';
  const exports = useAsync(fetchExports, []);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const following = exports.data?.some(inProgress) ?? false;

  useEffect(() => {
    if (!following) return;
    const timer = setTimeout(exports.reload, FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [following, exports.data]);

  const start = async () => {
    setStarting(true);
    setStartError(null);
    try {
      await startExport();
      exports.reload();
    } catch (failure) {
      setStartError(`The export could not start: ${messageOf(failure)}`);
    } finally {
      setStarting(false);
    }
  };

  return (
    <section class="card" id="export" aria-labelledby="export-heading">
      <h2 id="export-heading">Import and export</h2>
      <h3>Export</h3>
      <p class="muted">
        {manager
          ? 'One file with the whole team: members, lists, statuses, labels, tasks, comments, activity and files.'
          : 'One file with what you can read: your lists and their tasks, with comments, activity and files.'}{' '}
        Gzip’d JSON Lines, kept for 7 days; no passwords, keys or secrets are in it.
      </p>
      <button type="button" onClick={() => void start()} disabled={starting || following}>
        {following ? 'Exporting…' : 'Export now'}
      </button>
      <ErrorNote message={startError ?? exports.error} />
      {exports.loading && !exports.data && <p class="muted">Loading your exports…</p>}
      {exports.data?.length === 0 && <p class="muted">No exports yet.</p>}
      {exports.data && exports.data.length > 0 && (
        <ul class="export-rows" aria-label="Your exports">
          {exports.data.map((item) => (
            <ExportRow key={item.id} item={item} />
          ))}
        </ul>
      )}
      {manager && <ImportPart live={live} />}
    </section>
  );
}

function ExportRow({ item }: { item: Export }) {
  const started = new Date(item.createdAt).toLocaleString();
  const scope = item.scope === 'team' ? 'Whole team' : 'What you can read';
  return (
    <li class="export-row" aria-label={`Export of ${started}`}>
      <span>
        {scope}, {started}
      </span>
      {inProgress(item) && (
        <span class="muted" role="status">
          Being written…
        </span>
      )}
      {item.status === 'ready' && (
        <>
          <span class="muted">
            {humanSize(item.size ?? 0)}
            {item.counts?.task !== undefined && `, ${item.counts.task} tasks`}
          </span>
          <a href={exportFileUrl(item.id)} download>
            Download
          </a>
        </>
      )}
      {item.status === 'failed' && <ErrorNote message={`This export failed: ${item.error ?? 'no reason given'}`} />}
    </li>
  );
}
