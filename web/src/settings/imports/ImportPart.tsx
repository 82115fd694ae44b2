/**
 * Settings → Import and export, the import (owners and admins; a chunk of its own, issue 32): a
 * file is uploaded with its source (and for a spreadsheet, which column holds which field) and
 * the server answers its plan, having written nothing; "Apply" writes it in the background, the
 * progress bar following `import.progress` (and a read every 2 s while applying, should the
 * stream be down); once it ends, its result, and "Undo" while the server still takes it back.
 * The team's recent imports are listed below; any of them can be shown again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Import, ImportPlan, ImportResult } from '@contract';
import { messageOf } from '../../api/client';
import { fetchImport, fetchImports, importAction, uploadImport } from '../../api/imports';
import type { useLiveEvent } from '../../app/live';
import { useSession } from '../../app/session-context';
import { formatTimestamp } from '../../lib/dates';
import { countOf } from '../../lib/plural';
import { useAsync } from '../../lib/use-async';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ErrorNote } from '../../ui/ErrorNote';

/** How often the import shown is read again while it is applied (the stream's fallback). */
const FOLLOW_MS = 2_000;

const SOURCES = {
  tasklane: 'tasklane export',
  trello: 'Trello board (JSON)',
  todoist: 'Todoist project (CSV)',
  csv: 'Spreadsheet (CSV)',
} as const;
type Source = keyof typeof SOURCES;
const ACCEPT: Record<Source, string> = { tasklane: '.gz,.jsonl', trello: '.json', todoist: '.csv', csv: '.csv,.txt' };

/** The spreadsheet fields a column can be named for (the server takes a few more). */
const COLUMNS = {
  title: 'Title',
  description: 'Description',
  status: 'Status',
  dueDate: 'Due date',
  assignees: 'Assignees',
  labels: 'Labels',
  list: 'List',
};

const KINDS = { status: 'Statuses', label: 'Labels', list: 'Lists', task: 'Tasks', comment: 'Comments' } as const;
const ACTIONS = { create: 'Create', update: 'Update', match: 'Match', unchanged: 'Unchanged', skip: 'Skip' } as const;
const DONE = {
  create: 'created',
  update: 'updated',
  match: 'matched',
  unchanged: 'unchanged',
  skip: 'skipped',
} as const;
const STATUSES: Record<Import['status'], string> = {
  planned: 'Planned',
  applying: 'Applying',
  applied: 'Applied',
  cancelled: 'Cancelled',
  failed: 'Failed',
  undone: 'Undone',
};

const keys = <T extends object>(object: T) => Object.keys(object) as (keyof T)[];

/**
 * `live`: useLiveEvent, handed down by SettingsPage. Imported here, the bundler split the first
 * load's chunk in two, 0.5 KiB larger gzip'd (over the budget).
 */
export function ImportPart({ live }: { live: typeof useLiveEvent }) {
  const imports = useAsync(fetchImports, []);
  const [shown, setShown] = useState<Import | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const applying = shown?.status === 'applying';

  const latest = useRef(shown);
  latest.current = shown;

  /** Shows `next`, read again, unless another import is shown by now or what is shown is newer. */
  const show = (next: Import) => {
    const current = latest.current;
    if (!current || current.id !== next.id || current.updatedAt > next.updatedAt) return;
    if (current.status !== next.status) imports.reload();
    setShown(next);
  };

  /** Counts the reads while applying, so a failed one is followed by another 2 s later. */
  const [reads, setReads] = useState(0);
  const refresh = (id: number) =>
    fetchImport(id)
      .then(
        (next) => {
          setReadError(null);
          show(next);
        },
        (failure: unknown) => setReadError(`This import could not be read again: ${messageOf(failure)}`),
      )
      .finally(() => setReads((count) => count + 1));

  live((event) => {
    if (shown && (event.type === 'import.progress' || (event.type === 'sync.required' && applying)))
      void refresh(shown.id);
  });

  useEffect(() => {
    if (!shown || !applying) return;
    const timer = setTimeout(() => void refresh(shown.id), FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [shown, reads]);

  const act = async (what: string, run: () => Promise<Import>) => {
    setBusy(true);
    setError(null);
    setReadError(null);
    try {
      const next = await run();
      setShown(next);
      imports.reload();
    } catch (failure) {
      setError(`${what}: ${messageOf(failure)}`);
    } finally {
      setBusy(false);
    }
  };

  const pick = (item: Import) => {
    setError(null);
    setReadError(null);
    setShown(item);
  };

  return (
    <section class="import-part" aria-labelledby="import-heading">
      <h3 id="import-heading">Import</h3>
      <p class="muted">
        Bring in tasks, lists, statuses, labels and comments from a file. You see the plan first: nothing is written
        until you apply it.
      </p>
      <ImportForm busy={busy} onUpload={(send) => void act('The file could not be planned', send)} />
      <ErrorNote message={error ?? readError} />
      {shown && <ImportView item={shown} busy={busy} act={act} />}
      <h4>Recent imports</h4>
      <ErrorNote message={imports.error} />
      {imports.loading && !imports.data && <p class="muted">Loading the imports…</p>}
      {imports.data?.length === 0 && <p class="muted">No imports yet.</p>}
      {imports.data && imports.data.length > 0 && (
        <ul class="export-rows" aria-label="Recent imports">
          {imports.data.map((item) => (
            <li key={item.id} class="export-row">
              <button
                type="button"
                class="button-quiet import-pick"
                aria-current={shown?.id === item.id ? 'true' : undefined}
                onClick={() => pick(item)}
              >
                <strong>{STATUSES[item.status]}</strong> · {SOURCES[item.source]} · {item.fileName ?? 'no file name'} ·{' '}
                {formatTimestamp(item.createdAt)}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ImportForm({ busy, onUpload }: { busy: boolean; onUpload: (send: () => Promise<Import>) => void }) {
  const { csrfToken } = useSession().session;
  const [source, setSource] = useState<Source>('tasklane');
  const fileInput = useRef<HTMLInputElement>(null);

  const submit = (event: Event) => {
    event.preventDefault();
    const file = fileInput.current?.files?.[0];
    if (!file) return;
    const values = new FormData(event.currentTarget as HTMLFormElement);
    const columns: Record<string, string> = {};
    if (source === 'csv') {
      for (const field of keys(COLUMNS)) {
        const column = String(values.get(field) ?? '').trim();
        if (column) columns[field] = column;
      }
    }
    onUpload(() => uploadImport(source, file, Object.keys(columns).length > 0 ? columns : null, csrfToken));
  };

  return (
    <form class="import-form" aria-labelledby="import-form-heading" onSubmit={submit}>
      <h4 id="import-form-heading">Upload a file</h4>
      <div class="import-fields">
        <label class="field">
          <span>Source</span>
          <select value={source} onChange={(event) => setSource(event.currentTarget.value as Source)}>
            {keys(SOURCES).map((key) => (
              <option key={key} value={key}>
                {SOURCES[key]}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>File</span>
          <input type="file" ref={fileInput} accept={ACCEPT[source]} required />
        </label>
      </div>
      {source === 'csv' && (
        <fieldset class="import-columns">
          <legend>Column names (optional)</legend>
          <p class="muted small">The column that holds each field, when it is not named as the field is.</p>
          <div class="import-column-fields">
            {keys(COLUMNS).map((field) => (
              <label key={field} class="field">
                <span>{COLUMNS[field]}</span>
                <input name={field} placeholder={COLUMNS[field]} autocomplete="off" />
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <div class="form-actions">
        <button type="submit" class="button-primary" disabled={busy}>
          Upload and plan
        </button>
      </div>
    </form>
  );
}

function ImportView({
  item,
  busy,
  act,
}: {
  item: Import;
  busy: boolean;
  act: (what: string, run: () => Promise<Import>) => Promise<void>;
}) {
  const { done, total } = item.progress;
  const undoable = item.undoUntil !== null && Date.parse(item.undoUntil) > Date.now();
  const run = (what: string, action: 'apply' | 'cancel' | 'undo') =>
    void act(what, () => importAction(item.id, action));
  return (
    <div class="import-view" role="group" aria-labelledby="import-view-heading">
      <h4 id="import-view-heading">
        {SOURCES[item.source]}: {item.fileName ?? 'no file name'}
      </h4>
      <p>
        <strong>{STATUSES[item.status]}</strong>
        <span class="muted"> · uploaded {formatTimestamp(item.createdAt)}</span>
        {item.finishedAt && <span class="muted"> · ended {formatTimestamp(item.finishedAt)}</span>}
      </p>
      {item.status === 'planned' && (
        <>
          <p class="info-note">Nothing has been written yet. Check the plan, then apply it.</p>
          <PlanDetails plan={item.plan} />
          <div class="form-actions">
            <button
              type="button"
              class="button-primary"
              disabled={busy}
              onClick={() => run('The import could not start', 'apply')}
            >
              Apply
            </button>
            <button
              type="button"
              class="button-quiet"
              disabled={busy}
              onClick={() => run('The plan was not dropped', 'cancel')}
            >
              Drop this plan
            </button>
          </div>
        </>
      )}
      {item.status === 'applying' && (
        <div class="import-progress">
          <progress max={Math.max(total, 1)} value={done} aria-label="Import progress" />
          <span role="status">
            {done} of {countOf(total, 'object')} written
          </span>
          <button
            type="button"
            class="button-quiet"
            disabled={busy}
            onClick={() => run('The import was not cancelled', 'cancel')}
          >
            Cancel
          </button>
        </div>
      )}
      {item.status === 'failed' && <ErrorNote message={`The import failed: ${item.error ?? 'no reason given'}`} />}
      {item.result && item.status !== 'applying' && <ResultDetails result={item.result} />}
      {undoable && (
        <div class="form-actions">
          <ConfirmButton
            label="Undo this import"
            confirmLabel="Yes, take it back"
            onConfirm={() => run('The import was not undone', 'undo')}
          />
          <span class="muted small">
            Takes back what it wrote, until {formatTimestamp(item.undoUntil)}, unless something it made was changed
            since.
          </span>
        </div>
      )}
      {item.status !== 'planned' && (
        <details>
          <summary>The plan it followed</summary>
          <PlanDetails plan={item.plan} />
        </details>
      )}
    </div>
  );
}

function PlanDetails({ plan }: { plan: ImportPlan }) {
  const { matched, unknown } = plan.people;
  return (
    <>
      {/* Scrolls sideways on a narrow phone: focusable, so a keyboard scrolls it too. */}
      <div class="table-scroll" tabIndex={0} role="group" aria-label="Counts by kind">
        <table class="table plan-table">
          <caption class="sr-only">The plan: what each kind of object would do</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              {keys(ACTIONS).map((action) => (
                <th key={action} scope="col">
                  {ACTIONS[action]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {keys(KINDS).map((kind) => (
              <tr key={kind}>
                <th scope="row">{KINDS[kind]}</th>
                {keys(ACTIONS).map((action) => (
                  <td key={action}>{plan.kinds[kind][action] || ''}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {keys(KINDS)
        .filter((kind) => plan.kinds[kind].first.length > 0)
        .map((kind) => (
          <details key={kind} class="plan-first">
            <summary>
              {KINDS[kind]}: the first {plan.kinds[kind].first.length}
            </summary>
            <ul>
              {plan.kinds[kind].first.map((row, index) => (
                <li key={index}>
                  <span class="muted">Line {row.line}</span> · {ACTIONS[row.action]} · {row.name}
                </li>
              ))}
            </ul>
          </details>
        ))}
      <p>
        {countOf(matched, 'person', 'people')} of the file found among the members.
        {unknown.length > 0 && ' Not members (not assigned or added; their comments name them):'}
      </p>
      {unknown.length > 0 && (
        <ul class="import-people" aria-label="People not in the team">
          {unknown.map((person) => (
            <li key={`${person.email ?? ''} ${person.name ?? ''}`}>
              {[person.name, person.email].filter(Boolean).join(', ')}{' '}
              <span class="muted">
                · first on line {person.line} · named {countOf(person.count, 'time')}
              </span>
            </li>
          ))}
        </ul>
      )}
      <Problems problems={plan.problems} count={plan.problemCount} />
    </>
  );
}

function ResultDetails({ result }: { result: ImportResult }) {
  const counts = keys(DONE).filter((action) => result[action] > 0);
  return (
    <>
      <p>
        {counts.length === 0
          ? 'Nothing was written.'
          : `${counts.map((action) => `${countOf(result[action], 'object')} ${DONE[action]}`).join(', ')}.`}
      </p>
      <Problems problems={result.problems} count={result.problemCount} />
    </>
  );
}

function Problems({ problems, count }: { problems: ImportPlan['problems']; count: number }) {
  if (count === 0) return null;
  return (
    <>
      <p>{countOf(count, 'problem')}:</p>
      <ul class="import-problems" aria-label="Problems">
        {problems.map((problem, index) => (
          <li key={index}>
            <span class="muted">Line {problem.line}:</span> {problem.message}
          </li>
        ))}
        {count > problems.length && <li class="muted">and {count - problems.length} more</li>}
      </ul>
    </>
  );
}
