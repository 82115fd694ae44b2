/**
 * The token of a link that carries it after `#` (an invitation, an unsubscribe link), as the link
 * was made: browsers never send a fragment to a server or in a Referer.
 */
export function tokenFromLocation(): string {
  const raw = window.location.hash.slice(1);
  try {
    return decodeURIComponent(raw).trim();
  } catch {
    return raw.trim();
  }
}
