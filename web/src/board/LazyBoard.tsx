/**
 * The board, fetched as a chunk of its own the first time a view is shown as a board: the first
 * screen (a list, My tasks as rows) does not download it.
 */
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote } from '../ui/ErrorNote';
import type { BoardProps } from './Board';

type BoardComponent = typeof import('./Board').Board;
let loading: Promise<BoardComponent> | null = null;
const loadBoard = () => (loading ??= import('./Board').then((module) => module.Board));

export function LazyBoard(props: BoardProps) {
  const [Board, setBoard] = useState<BoardComponent | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    loadBoard().then(
      (loaded) => setBoard(() => loaded),
      () => {
        loading = null; // the next visit tries again
        setFailed(true);
      },
    );
  }, []);

  if (Board) return <Board {...props} />;
  return failed ? (
    <ErrorNote message="The board could not be loaded. Check your connection and reload the page." />
  ) : (
    <p class="muted">Loading the board…</p>
  );
}
