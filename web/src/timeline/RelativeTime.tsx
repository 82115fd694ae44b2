/** "5 minutes ago", with the exact date and time on hover (the title) and for machines (datetime). */
import { formatTimestamp } from '../lib/dates';
import { relativeTime } from './relative-time';

interface Props {
  iso: string;
  /** The timeline's clock (ms), ticking so "just now" becomes "1 minute ago". */
  now: number;
  /** Before the exact time in the title: "Edited 21 Nov 2026, 17:04". */
  titlePrefix?: string;
  children?: string;
}

export function RelativeTime({ iso, now, titlePrefix, children }: Props) {
  const exact = formatTimestamp(iso);
  return (
    <time class="relative-time" dateTime={iso} title={titlePrefix ? `${titlePrefix} ${exact}` : exact}>
      {children ?? relativeTime(iso, now)}
    </time>
  );
}
