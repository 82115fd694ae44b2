/**
 * `ATTACHMENTS_S3_URL`: where attachments live when they live in an S3-compatible bucket.
 *
 *   https://ACCESS_KEY_ID:SECRET_ACCESS_KEY@host[:port]/bucket[/key/prefix]?region=eu-central-1
 *
 * - The scheme and host are the endpoint: `https://` (or `http://`, for a server on a private
 *   network or loopback only: the keys sign each request, but the files travel in the clear).
 *   AWS itself is `https://s3.<region>.amazonaws.com`.
 * - The user and password are the access key id and the secret access key, percent-encoded as
 *   any URL's (a secret's `/` is `%2F`, `+` is `%2B`).
 * - The first path segment is the bucket; the rest, if any, a key prefix that every key is stored
 *   under (`/bucket/tasklane/` stores `tasklane/<key>`).
 * - `region` defaults to us-east-1 (what most S3-compatible servers expect, whatever their place).
 * - `forcePathStyle` defaults to true (`host/bucket/key`, which every S3-compatible server
 *   speaks); `forcePathStyle=false` addresses `bucket.host/key`, as AWS prefers.
 *
 * The secret is never echoed: not in a problem, not in `describeS3Config`.
 */
export interface S3Config {
  /** The endpoint's origin, e.g. `https://s3.eu-central-1.amazonaws.com`. */
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly forcePathStyle: boolean;
  /** Prepended to every key, ending in `/`; absent without one. */
  readonly prefix?: string;
}

const EXAMPLE = 'https://ACCESS_KEY_ID:SECRET_ACCESS_KEY@s3.example.com/bucket?region=eu-central-1';
const QUERY_PARAMETERS = ['region', 'forcePathStyle'];
/** S3's bucket naming rules: 3 to 63 lower-case letters, digits, dots and hyphens, a letter or digit at each end. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,64}$/;

function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/**
 * `ATTACHMENTS_S3_URL` as an S3Config, or null when unset or empty (attachments then stay on
 * disk). Each problem goes into `problems` (as src/config.ts's parsers do), naming the part that
 * is wrong but never the value, which holds the secret key.
 */
export function parseS3Url(raw: string | undefined, problems: string[]): S3Config | null {
  const value = raw?.trim();
  if (!value) return null;
  const found: string[] = [];
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url) {
    problems.push(`ATTACHMENTS_S3_URL is not a URL; it must look like ${EXAMPLE}`);
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    found.push(`must start with https:// (or http://), not ${url.protocol}//`);
  }
  if (!url.hostname) found.push('must name the endpoint host');
  const accessKeyId = decode(url.username);
  const secretAccessKey = decode(url.password);
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    found.push('has a malformed %-escape in its access key id or secret');
  } else if (!accessKeyId || !secretAccessKey) {
    found.push('must hold the access key id and the secret access key as user:password@');
  }
  const [bucket = '', ...rest] = url.pathname.replace(/^\//, '').split('/');
  if (!bucket) {
    found.push('must name the bucket as the first part of its path');
  } else if (!BUCKET.test(bucket) || bucket.includes('..')) {
    found.push(`names a bucket "${bucket}" that S3 does not allow (3 to 63 lower-case letters, digits, dots, hyphens)`);
  }
  const prefixParts = rest.filter((part) => part !== '').map((part) => decode(part));
  if (prefixParts.some((part) => part === undefined)) found.push('has a malformed %-escape in its key prefix');
  const prefix = prefixParts.length ? `${prefixParts.join('/')}/` : undefined;
  for (const name of url.searchParams.keys()) {
    if (!QUERY_PARAMETERS.includes(name)) {
      found.push(`has an unknown parameter "${name}" (known: ${QUERY_PARAMETERS.join(', ')})`);
    }
  }
  const region = url.searchParams.get('region') ?? 'us-east-1';
  if (!REGION.test(region)) found.push(`has a region "${region}" that is not a region name (such as eu-central-1)`);
  const pathStyle = url.searchParams.get('forcePathStyle') ?? 'true';
  if (pathStyle !== 'true' && pathStyle !== 'false') {
    found.push(`has forcePathStyle="${pathStyle}"; it must be true or false`);
  }
  if (url.hash) found.push('must not have a #fragment');
  if (found.length) {
    problems.push(...found.map((problem) => `ATTACHMENTS_S3_URL ${problem} (for example ${EXAMPLE})`));
    return null;
  }
  return {
    endpoint: url.origin,
    region,
    bucket,
    accessKeyId: accessKeyId!,
    secretAccessKey: secretAccessKey!,
    forcePathStyle: pathStyle === 'true',
    ...(prefix ? { prefix } : {}),
  };
}

/** The configuration for a log line or an error: everything but the secret. */
export function describeS3Config(config: S3Config): string {
  const path = `${config.bucket}/${config.prefix ?? ''}`;
  return `${config.endpoint}/${path} (region ${config.region}, access key ${config.accessKeyId}, ${
    config.forcePathStyle ? 'path-style' : 'virtual-hosted'
  })`;
}
