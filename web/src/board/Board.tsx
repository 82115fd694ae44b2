/**
 * A view's tasks as columns by status, in the team's order, with the view's filters. A card
 * dragged to another column, or moved from the keyboard (Shift+←/→), changes its status; the
 * move shows at once and is put back, with the reason, if the server refuses it. Other people's
 * changes move cards live: an event reloads only the columns it touches.
 *
 * Keys on a card's title: ↑/↓ (J/K) the card above or below, ←/→ (H/L) the next column,
 * Home/End the column's first and last, Shift+←/→ move the card. S (the card's ⋯) lists every
 * status, O or Enter opens the task (those two are the app's own shortcuts, app/shortcuts.tsx).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { TaskStatus, TaskSummary } from '@contract';
import { fetchTask } from '../api/tasks';
import { useLiveEvent } from '../app/live';
import { useTeamData } from '../app/team-data';
import { countOf, plural } from '../lib/plural';
import { hasFilters, type TaskFilters, type TaskScope } from '../lib/task-filters';
import { quote } from '../tasks/fields';
import { Dialog } from '../ui/Dialog';
import { useNotify } from '../ui/notices';
import { BoardColumn } from './BoardColumn';
import { boardColumns, columnQuery, neighbourColumn, subtaskCounts } from './board-model';
import { useBoard } from './use-board';

export interface BoardProps {
  filters: TaskFilters;
  scope: TaskScope;
  /** What the view says when it holds no task at all. */
  empty: ComponentChildren;
  /** Given the board's reload, for a task added above it. */
  reloadRef: { current: () => void };
}

export function Board({ filters, scope, empty, reloadRef }: BoardProps) {
  const { statuses } = useTeamData();
  const notify = useNotify();
  const columns = boardColumns(statuses, filters);
  const queries = new Map(columns.map((status) => [status.id, columnQuery(filters, scope, status.id)]));
  const board = useBoard(queries);
  reloadRef.current = () => board.reloadSoon();

  const [dragging, setDragging] = useState<TaskSummary | null>(null);
  const [dropOn, setDropOn] = useState<number | null>(null);
  const [focusTaskId, setFocusTaskId] = useState<number | null>(null);
  const [choosing, setChoosing] = useState<TaskSummary | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const boardRef = useRef<HTMLDivElement>(null);
  const [bodyHeight, setBodyHeight] = useState(480);

  // Columns end at the window's foot, so the page itself barely scrolls and each column does.
  const fit = () => {
    const board = boardRef.current;
    if (!board) return;
    const below = window.innerHeight - board.getBoundingClientRect().top - window.scrollY;
    const height = Math.max(320, Math.round(below - 56)); // the column's header, and a margin
    setBodyHeight((current) => (Math.abs(current - height) > 1 ? height : current));
  };
  useLayoutEffect(fit);
  useEffect(() => {
    window.addEventListener('resize', fit);
    return () => window.removeEventListener('resize', fit);
  }, []);

  useLiveEvent((event) => {
    if (event.type.startsWith('comment.')) return; // nothing a card shows
    if (!event.type.startsWith('task.') || event.taskId === undefined) return board.reloadSoon(); // lists, a resync
    const shownIn = board.columnOf(event.taskId);
    if (shownIn !== undefined) board.reloadSoon([shownIn]);
    if (event.type === 'task.deleted') return;
    // Where it is now: that column too (one small read instead of every column).
    fetchTask(event.taskId).then(
      ({ data }) => queries.has(data.status.id) && board.reloadSoon([data.status.id]),
      () => {}, // gone, or no longer shared: its old column has been reloaded
    );
  });

  const counts = useMemo(
    () => subtaskCounts([...board.columns.values()].map((column) => column.tasks)),
    [board.columns],
  );

  const move = async (task: TaskSummary, to: TaskStatus, keepFocus: boolean) => {
    if (task.status.id === to.id) return;
    keepFocus &&= queries.has(to.id); // a status the filters hide takes the card out of sight
    if (keepFocus) setFocusTaskId(task.id);
    const problem = await board.move(task, to);
    if (problem) notify(problem, 'error'); // said by the notices' own live region
    setAnnouncement(problem ? '' : `Moved ${quote(task)} to ${to.name}.`);
    if (keepFocus && problem) setFocusTaskId(task.id); // back in its column
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement;
    if (event.ctrlKey || event.metaKey || event.altKey || !target.matches('[data-task-link]')) return;
    const taskId = Number(target.closest<HTMLElement>('[data-task-id]')?.dataset.taskId);
    const statusId = board.columnOf(taskId);
    const tasks = statusId === undefined ? undefined : board.columns.get(statusId)?.tasks;
    if (statusId === undefined || !tasks) return;
    const index = tasks.findIndex((task) => task.id === taskId);
    const focusAt = (inTasks: TaskSummary[] | undefined, at: number) => {
      const next = inTasks?.[Math.max(0, Math.min(at, inTasks.length - 1))];
      if (next) setFocusTaskId(next.id);
    };
    const side = (direction: -1 | 1) => {
      const neighbour = neighbourColumn(columns, statusId, direction);
      if (!neighbour) return;
      if (event.shiftKey) void move(tasks[index]!, neighbour, true);
      else focusAt(board.columns.get(neighbour.id)?.tasks, index);
    };
    const key = event.key;
    if (event.shiftKey && key !== 'ArrowLeft' && key !== 'ArrowRight') return;
    if (key === 'ArrowDown' || key === 'j') focusAt(tasks, index + 1);
    else if (key === 'ArrowUp' || key === 'k') focusAt(tasks, index - 1);
    else if (key === 'Home') focusAt(tasks, 0);
    else if (key === 'End') focusAt(tasks, tasks.length - 1);
    else if (key === 'ArrowLeft' || key === 'h') side(-1);
    else if (key === 'ArrowRight' || key === 'l') side(1);
    else return;
    event.preventDefault();
  };

  if (statuses.length === 0) return <p class="muted">Loading the board…</p>;

  const loaded = columns.every((status) => board.columns.get(status.id)?.tasks !== undefined);
  const total = columns.reduce((sum, status) => sum + (board.columns.get(status.id)?.tasks?.length ?? 0), 0);

  return (
    <>
      {loaded && (
        <p class="task-count muted" aria-live="polite">
          {countOf(total, 'task')}
          {hasFilters(filters) && ` ${plural(total, 'matches', 'match')} these filters`}
        </p>
      )}
      {loaded && total === 0 && empty}
      {columns.length === 0 && <p class="empty">No status matches these filters.</p>}
      <div class="board" ref={boardRef} onKeyDown={onKeyDown}>
        {columns.map((status) => (
          <BoardColumn
            key={status.id}
            status={status}
            column={board.columns.get(status.id)}
            bodyHeight={bodyHeight}
            subtasks={counts}
            dragging={dragging}
            dropTarget={dropOn === status.id}
            focusTaskId={focusTaskId}
            onFocused={() => setFocusTaskId(null)}
            onDragStart={setDragging}
            onDragEnd={() => {
              setDragging(null);
              setDropOn(null);
            }}
            onDragOver={(over) => setDropOn(over.id)}
            onDrop={(to) => {
              if (dragging) void move(dragging, to, false);
              setDragging(null);
              setDropOn(null);
            }}
            onChooseStatus={setChoosing}
            onRetry={() => board.reloadSoon([status.id])}
          />
        ))}
      </div>
      <p class="sr-only" role="status">
        {announcement}
      </p>
      {choosing && (
        <Dialog title={`Move ${quote(choosing)}`} onClose={() => setChoosing(null)}>
          <ul class="status-choices" aria-label="Statuses">
            {[...statuses]
              .sort((a, b) => a.order - b.order)
              .map((status) => (
                <li key={status.id}>
                  <button
                    type="button"
                    class="button-secondary"
                    aria-current={status.id === choosing.status.id ? 'true' : undefined}
                    disabled={status.id === choosing.status.id}
                    onClick={() => {
                      const task = choosing;
                      setChoosing(null);
                      void move(task, status, true);
                    }}
                  >
                    {status.name}
                    {status.id === choosing.status.id && ' (now)'}
                  </button>
                </li>
              ))}
          </ul>
        </Dialog>
      )}
    </>
  );
}
