/**
 * The board's data: one GET /v1/tasks per column (the column's status, with the view's filters),
 * so each column holds up to the API's 1,000 tasks, and a change reloads only the columns it
 * touches. A move is shown at once and sent; while it is on its way the two columns' reloads
 * wait (an answer read before the server had the move would briefly undo it), and a refused move
 * is put back.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { TaskStatus, TaskSummary } from '@contract';
import { ApiError, messageOf } from '../api/client';
import { fetchTask, fetchTasks, updateTask } from '../api/tasks';
import { placeTask } from './board-model';

export interface ColumnData {
  /** The column's tasks, newest first; undefined until the first answer. */
  tasks: TaskSummary[] | undefined;
  error: string | null;
}

export interface Board {
  columns: ReadonlyMap<number, ColumnData>;
  /** Reloads these columns (every column without ids) a moment later, folding a burst into one. */
  reloadSoon: (statusIds?: number[]) => void;
  /** The column that shows this task now, if any. */
  columnOf: (taskId: number) => number | undefined;
  /** Moves a task to another column; resolves to null when the server took it, else why not. */
  move: (task: TaskSummary, to: TaskStatus) => Promise<string | null>;
}

/** `queries`: each shown column's status id → its GET /v1/tasks query string. */
export function useBoard(queries: ReadonlyMap<number, string>): Board {
  const [columns, setColumns] = useState<ReadonlyMap<number, ColumnData>>(new Map());
  const columnsRef = useRef(columns);
  columnsRef.current = columns;
  const queriesRef = useRef(queries);
  queriesRef.current = queries;
  const generation = useRef(new Map<number, number>());
  const holds = useRef(new Map<number, number>());
  const deferred = useRef(new Set<number>());
  const pending = useRef(new Set<number>());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const update = (statusId: number, change: (column: ColumnData) => ColumnData) =>
    setColumns((all) => {
      const next = new Map(all);
      next.set(statusId, change(all.get(statusId) ?? { tasks: undefined, error: null }));
      return next;
    });

  const nextGeneration = (statusId: number) => {
    const mine = (generation.current.get(statusId) ?? 0) + 1;
    generation.current.set(statusId, mine);
    return mine;
  };

  const load = useCallback((statusId: number) => {
    const query = queriesRef.current.get(statusId);
    if (query === undefined) return; // a column no longer shown
    if ((holds.current.get(statusId) ?? 0) > 0) {
      deferred.current.add(statusId);
      return;
    }
    const mine = nextGeneration(statusId);
    fetchTasks(new URLSearchParams(query)).then(
      (tasks) => generation.current.get(statusId) === mine && update(statusId, () => ({ tasks, error: null })),
      (error: unknown) =>
        generation.current.get(statusId) === mine &&
        update(statusId, (column) => ({ ...column, error: messageOf(error) })),
    );
  }, []);

  const reloadSoon = useCallback(
    (statusIds?: number[]) => {
      for (const id of statusIds ?? queriesRef.current.keys()) pending.current.add(id);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        const ids = [...pending.current];
        pending.current.clear();
        ids.forEach(load);
      }, 60);
    },
    [load],
  );

  // Other columns or other filters: start afresh (an answer still on its way is ignored).
  const key = [...queries].map(([id, query]) => `${id}:${query}`).join('\n');
  useEffect(() => {
    for (const id of generation.current.keys()) nextGeneration(id);
    setColumns(new Map());
    for (const id of queriesRef.current.keys()) load(id);
    return () => clearTimeout(timer.current);
  }, [key]);

  /** Holds back the columns' reloads until the returned release; a load on its way is ignored. */
  const hold = (statusIds: number[]) => {
    for (const id of statusIds) {
      holds.current.set(id, (holds.current.get(id) ?? 0) + 1);
      nextGeneration(id);
      deferred.current.add(id); // and so they load again once released
    }
    return () => {
      for (const id of statusIds) {
        const left = (holds.current.get(id) ?? 1) - 1;
        holds.current.set(id, left);
        if (left === 0 && deferred.current.delete(id)) load(id);
      }
    };
  };

  const columnOf = useCallback((taskId: number) => {
    for (const [statusId, column] of columnsRef.current) {
      if (column.tasks?.some((task) => task.id === taskId)) return statusId;
    }
    return undefined;
  }, []);

  const move = useCallback(async (task: TaskSummary, to: TaskStatus): Promise<string | null> => {
    const from = task.status.id;
    if (from === to.id) return null;
    const moved: TaskSummary = { ...task, status: { id: to.id, name: to.name }, isCompleted: to.isCompleted };
    const release = hold([from, to.id]);
    const put = (where: number, what: TaskSummary, away: number) => {
      update(away, (column) => ({ ...column, tasks: column.tasks?.filter((other) => other.id !== task.id) }));
      update(where, (column) => ({ ...column, tasks: column.tasks && placeTask(column.tasks, what) }));
    };
    put(to.id, moved, from);
    try {
      // The task as the server has it now: a move made from a stale card is refused, not applied.
      const { data: current, etag } = await fetchTask(task.id);
      if (current.status.id !== from) {
        if (queriesRef.current.has(current.status.id)) reloadSoon([current.status.id]);
        throw new Error(
          `“${task.title}” was moved to ${current.status.name} elsewhere meanwhile, so your move was not made.`,
        );
      }
      await updateTask(task.id, { taskStatusId: to.id }, etag ?? undefined);
      return null;
    } catch (error) {
      put(from, task, to.id); // back where it was; the reload below shows the server's truth
      if (error instanceof ApiError && error.status === 412)
        return `“${task.title}” changed elsewhere while you moved it, so it was not moved. Try again.`;
      if (error instanceof ApiError) return `Could not move “${task.title}”: ${error.message}`;
      return messageOf(error);
    } finally {
      release();
    }
  }, []);

  return { columns, reloadSoon, columnOf, move };
}
