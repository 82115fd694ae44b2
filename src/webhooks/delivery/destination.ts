/**
 * Where a webhook may point (the SSRF guard's URL half; address-rules.ts is the address half).
 * A URL must be https, unless its host is listed in WEBHOOK_ALLOW_HOSTS; every address its host
 * resolves to must be public unless the host is listed. The check runs when a webhook is created
 * or its URL changed, and again before every attempt, since DNS can change: the attempt then
 * connects to the very address checked (send.ts), so a second lookup cannot slip another in.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { forbiddenReason } from './address-rules.js';

/**
 * A URL or address a webhook may not use. The message, in words for its owner, never says what a
 * name resolves to, nor how resolving it failed: that would let any member map the server's
 * internal DNS. `detail` holds that for the server's log alone.
 */
export class DestinationError extends Error {
  constructor(
    message: string,
    readonly detail?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface Destination {
  url: URL;
  /** The address to connect to, checked. */
  address: string;
  family: 4 | 6;
}

/** The URL's host as the allow list names hosts: lower case, an IPv6 address without brackets. */
const hostOf = (url: URL) => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/** Parses and checks a webhook URL without resolving it. */
export function parseWebhookUrl(raw: string, allowHosts: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationError('url must be an absolute https URL, such as https://example.com/webhooks.');
  }
  const allowed = allowHosts.includes(hostOf(url));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) {
    throw new DestinationError(
      url.protocol === 'http:'
        ? `url must use https (http only for hosts the server's WEBHOOK_ALLOW_HOSTS lists, which ${url.hostname} is not).`
        : 'url must be an absolute https URL, such as https://example.com/webhooks.',
    );
  }
  if (url.username || url.password) {
    throw new DestinationError('url must not carry a user name or password; put a token in its path or query instead.');
  }
  if (!url.hostname) throw new DestinationError('url must name a host.');
  return url;
}

/**
 * The address an attempt connects to: each address the host resolves to must be allowed (one bad
 * one refuses the URL, so a name cannot mix a private address in among public ones).
 */
export async function resolveDestination(
  url: URL,
  allowHosts: readonly string[],
  timeoutMs: number,
): Promise<Destination> {
  const host = hostOf(url);
  const allowed = allowHosts.includes(host);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    const unresolved = (cause: string) => new DestinationError(`${host} cannot be resolved.`, { host, cause });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unresolved(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      addresses = await Promise.race([lookup(host, { all: true, verbatim: true }), timedOut]);
    } catch (error) {
      if (error instanceof DestinationError) throw error;
      throw unresolved((error as { code?: string }).code ?? String(error));
    } finally {
      clearTimeout(timer);
    }
    if (addresses.length === 0) throw unresolved('no address');
  }
  if (!allowed) {
    for (const { address } of addresses) {
      const reason = forbiddenReason(address);
      if (!reason) continue;
      // An address written in the URL may be named with its kind: its owner typed it, no DNS told it.
      if (address === host) {
        throw new DestinationError(
          `${host} is ${/^[aeiou]/.test(reason) ? 'an' : 'a'} ${reason} address, which webhooks may not reach.`,
        );
      }
      throw new DestinationError(
        `${host} resolves to an address that webhooks may not reach: only public addresses are allowed.`,
        { host, address, reason },
      );
    }
  }
  const [first] = addresses as [{ address: string; family: number }];
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
