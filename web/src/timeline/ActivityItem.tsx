/** One activity entry: a sentence ("Ada moved this to Done") and when; a description's texts behind a disclosure. */
import type { ActivityEntry } from '@contract';
import { Link } from '../ui/Link';
import { describeEntry, type Part, type Reader } from './activity-text';
import { DescriptionChange } from './DescriptionChange';
import { RelativeTime } from './RelativeTime';

export function ActivityItem({ entry, reader, now }: { entry: ActivityEntry; reader: Reader; now: number }) {
  return (
    <li class="timeline-entry">
      <span class="timeline-dot" aria-hidden="true" />
      <p>
        {describeEntry(entry, reader).map(renderPart)} <RelativeTime iso={entry.createdAt} now={now} />
      </p>
      {entry.changes.description && <DescriptionChange entry={entry} />}
    </li>
  );
}

function renderPart(part: Part, index: number) {
  if (typeof part === 'string') return part;
  if ('strong' in part) return <strong key={index}>{part.strong}</strong>;
  // A link within the page (a comment) is an ordinary anchor; one to another task moves in the app.
  if (part.href.startsWith('#'))
    return (
      <a key={index} href={part.href}>
        {part.text}
      </a>
    );
  return (
    <Link key={index} href={part.href}>
      {part.text}
    </Link>
  );
}
