/**
 * Labels as chips in their colours (rows, cards, the detail, Settings). A module of its own, with
 * few imports, so the lazy chunks that show chips (the board, Settings) share nothing else.
 */
import type { Label, LabelledTaskSummary, TaskSummary } from '@contract';
import { ColorDot } from '../ui/ColorPicker';

/** A task's labels; a row or card has them because views ask for them (`include=labels`, task-filters.ts). */
export const labelsOf = (task: TaskSummary): Label[] => (task as LabelledTaskSummary).labels ?? [];

export function LabelChips({ labels }: { labels: Label[] }) {
  return (
    <span class="label-chips">
      {labels.map((label) => (
        <span key={label.id} class="label-chip">
          <ColorDot color={label.color} />
          {label.name}
        </span>
      ))}
    </span>
  );
}
