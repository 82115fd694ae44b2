/**
 * One status's column: its name and count, and its cards in a scrolling body that draws only
 * the cards in sight (a column of 500 is a dozen or so cards in the DOM). Cards grow with their
 * content: each drawn card is measured, and one not drawn yet counts as ROW_HEIGHT until it is.
 * The body is where a dragged card is dropped.
 */
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { TaskStatus, TaskSummary } from '@contract';
import { countOf } from '../lib/plural';
import { ErrorNote } from '../ui/ErrorNote';
import { BoardCard } from './BoardCard';
import { COLUMN_LIMIT } from './board-model';
import type { ColumnData } from './use-board';
import { rowOffsets, scrollToShow, visibleRange } from './virtual-window';

/** A card's height and the gap under it, in px, until it is drawn and measured: a card of two lines. */
export const ROW_HEIGHT = 120;
/** The gap under each card (`.board-card` in styles.css has it as its margin). */
const CARD_GAP = 8;

interface Props {
  status: TaskStatus;
  column: ColumnData | undefined;
  /** The most the cards' scrolling body may take, in px. */
  bodyHeight: number;
  subtasks: ReadonlyMap<number, number>;
  dragging: TaskSummary | null;
  /** A dragged card is over this column. */
  dropTarget: boolean;
  /** A card of this column to give the keyboard's focus to, once it is drawn. */
  focusTaskId: number | null;
  onFocused: () => void;
  onDragStart: (task: TaskSummary) => void;
  onDragEnd: () => void;
  onDragOver: (status: TaskStatus) => void;
  onDrop: (status: TaskStatus) => void;
  onChooseStatus: (task: TaskSummary) => void;
  onRetry: () => void;
}

export function BoardColumn(props: Props) {
  const { status, column, bodyHeight, subtasks, dragging, dropTarget, focusTaskId } = props;
  const headingId = useId();
  const body = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  // The body's width too: a narrower column makes taller cards, to be measured again.
  const [, setWidth] = useState(0);
  // Each drawn card's height with its gap, by task; `measured` redraws once they change.
  const heights = useRef(new Map<number, number>());
  const [, setMeasured] = useState(0);
  const tasks = column?.tasks;
  const count = tasks?.length ?? 0;
  const offsets = rowOffsets((tasks ?? []).map((task) => heights.current.get(task.id) ?? ROW_HEIGHT));

  useEffect(() => {
    const element = body.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      setHeight(element.clientHeight);
      setWidth(element.clientWidth);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // After each drawing: the cards drawn, measured; a height that changed redraws the column.
  useLayoutEffect(() => {
    let changed = false;
    for (const card of body.current?.querySelectorAll<HTMLElement>('.board-card') ?? []) {
      const id = Number(card.dataset.taskId);
      const measured = card.offsetHeight + CARD_GAP;
      if (Math.abs((heights.current.get(id) ?? 0) - measured) >= 1) {
        heights.current.set(id, measured);
        changed = true;
      }
    }
    if (changed) setMeasured((n) => n + 1);
  });

  // A card to focus: brought into sight first (drawing it), then focused.
  useLayoutEffect(() => {
    const element = body.current;
    if (focusTaskId === null || !element || !tasks) return;
    const index = tasks.findIndex((task) => task.id === focusTaskId);
    if (index === -1) return;
    const top = scrollToShow(index, element.scrollTop, element.clientHeight, offsets);
    if (top !== element.scrollTop) {
      element.scrollTop = top;
      setScrollTop(element.scrollTop);
    }
    const link = element.querySelector<HTMLElement>(`[data-task-id="${focusTaskId}"] [data-task-link]`);
    if (link) {
      link.focus({ preventScroll: true });
      props.onFocused();
    }
  });

  const { start, end } = visibleRange(scrollTop, height, offsets);
  const label = `${status.name}: ${countOf(count, 'task')}`;

  return (
    <section
      class={`board-column${dropTarget ? ' is-drop-target' : ''}`}
      aria-labelledby={headingId}
      data-status-id={status.id}
    >
      <header class="board-column-header">
        <span class="status-dot" style={status.color ? { background: status.color } : undefined} aria-hidden="true" />
        <h2 id={headingId}>{status.name}</h2>
        {tasks && (
          <span class="muted board-column-count">
            {count >= COLUMN_LIMIT ? `${count}+` : count}
            <span class="sr-only"> {count === 1 ? 'task' : 'tasks'}</span>
          </span>
        )}
      </header>
      <div
        ref={body}
        class="board-column-body"
        style={{ maxHeight: `${bodyHeight}px` }}
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
        onDragOver={(event) => {
          if (!dragging) return;
          event.preventDefault(); // this is a place to drop
          if (event.dataTransfer) event.dataTransfer.dropEffect = 'move';
          if (!dropTarget) props.onDragOver(status);
        }}
        onDrop={(event) => {
          if (!dragging) return;
          event.preventDefault();
          props.onDrop(status);
        }}
      >
        <ErrorNote message={column?.error ?? null} />
        {column?.error && (
          <button type="button" class="button-link" onClick={props.onRetry}>
            Try again
          </button>
        )}
        {!tasks && !column?.error && <p class="muted board-column-note">Loading…</p>}
        {tasks?.length === 0 && <p class="muted board-column-note">No tasks</p>}
        {tasks && tasks.length > 0 && (
          // The cards not drawn are room above and below the ones that are.
          <ul
            class="board-cards"
            aria-label={label}
            style={{ paddingTop: `${offsets[start]}px`, paddingBottom: `${offsets[count]! - offsets[end]!}px` }}
          >
            {tasks.slice(start, end).map((task, offset) => (
              <BoardCard
                key={task.id}
                task={task}
                subtasks={subtasks.get(task.id) ?? 0}
                position={start + offset + 1}
                setSize={count}
                dragging={dragging?.id === task.id}
                onDragStart={props.onDragStart}
                onDragEnd={props.onDragEnd}
                onChooseStatus={props.onChooseStatus}
              />
            ))}
          </ul>
        )}
        {count >= COLUMN_LIMIT && (
          <p class="muted small board-column-note">
            The newest {COLUMN_LIMIT} are shown. Filter the view to see others.
          </p>
        )}
      </div>
    </section>
  );
}
