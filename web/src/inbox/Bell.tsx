/** The top bar's bell: a link to the inbox that says how many notifications are unread. */
import { Link } from '../ui/Link';
import { useUnread } from './inbox-state';

export function Bell() {
  const { unread, more } = useUnread();
  const count = unread?.length ?? 0;
  const shown = more ? `${count}+` : String(count);
  return (
    <Link
      href="/inbox"
      class="button-quiet bell"
      aria-label={count === 0 ? 'Inbox, nothing unread' : `Inbox, ${shown} unread`}
    >
      <svg class="bell-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
        <path
          d="M12 3a6 6 0 0 0-6 6v3.6L4.3 15.4A1 1 0 0 0 5.2 17h13.6a1 1 0 0 0 .9-1.6L18 12.6V9a6 6 0 0 0-6-6Zm-2 15a2 2 0 0 0 4 0"
          fill="none"
          stroke="currentColor"
          stroke-width="1.8"
          stroke-linejoin="round"
        />
      </svg>
      {count > 0 && (
        <span class="bell-count" aria-hidden="true">
          {shown}
        </span>
      )}
    </Link>
  );
}
