/**
 * Which redirect URIs a client may register, and whether a request's URI is one of them (OAuth
 * 2.1 §2.3.1 and §8.4.2): https anywhere, http only to the loopback interface, where a native
 * app listens on a port it picks each time, so a loopback URI matches whatever its port. No
 * fragment, no user info. Custom schemes (`cursor://`) are refused: nothing ties one to an app.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

const parse = (text: string): URL | undefined => {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
};

const isLoopbackHttp = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/** Why `text` cannot be a redirect URI, or undefined when it can. */
export function redirectUriProblem(text: string): string | undefined {
  const url = parse(text);
  if (!url) return `${JSON.stringify(text)} is not an absolute URI.`;
  if (url.hash || text.includes('#')) return `${text}: a redirect URI has no fragment.`;
  if (url.username || url.password) return `${text}: a redirect URI has no user information.`;
  if (url.protocol === 'https:' || isLoopbackHttp(url)) return undefined;
  return `${text}: a redirect URI must be https, or http to 127.0.0.1, localhost or [::1].`;
}

/** Whether `requested` is one of `registered`: exactly, or, for loopback http, but for the port. */
export function isRegisteredRedirect(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const asked = parse(requested);
  if (!asked || !isLoopbackHttp(asked)) return false;
  return registered.some((uri) => {
    const known = parse(uri);
    if (!known || !isLoopbackHttp(known)) return false;
    known.port = asked.port;
    return known.href === asked.href;
  });
}
