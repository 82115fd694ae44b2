/**
 * The cryptography of idempotency records. Every value stored is derived from the secret of the
 * credential that made the request (the API key, or the session cookie), which the database never
 * holds: the key and the request are stored as HMACs, and the saved response is sealed with
 * AES-256-GCM. A copy of the table therefore reveals nothing, not even the one-time secret in the
 * response of `POST /v1/api-keys`, and only the holder of the credential can have a response replayed.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { invalidInput } from './errors.js';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class IdempotencySeal {
  private readonly master: Buffer;
  /** The record's lookup key: equal for equal Idempotency-Keys of one credential. */
  readonly keyHash: string;

  /** `credentialSecret` is what the client authenticated with; `idempotencyKey` is its header. */
  constructor(
    credentialSecret: string,
    private readonly idempotencyKey: string,
  ) {
    this.master = createHmac('sha256', credentialSecret).update('tasklane idempotency v1').digest();
    this.keyHash = this.mac('key', idempotencyKey).toString('hex');
  }

  private mac(label: string, ...parts: string[]): Buffer {
    const hmac = createHmac('sha256', this.master).update(label);
    // Length-prefixed, so no two different part lists produce the same input.
    for (const part of parts) hmac.update(`\0${Buffer.byteLength(part)}\0${part}`);
    return hmac.digest();
  }

  /** What "the same request" means: method, URL (path and query) and body, canonicalized. */
  fingerprint(method: string, url: string, body: unknown): string {
    return this.mac('request', method, url, canonicalJson(body)).toString('hex');
  }

  seal(response: StoredResponse): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.mac('seal', this.idempotencyKey), iv);
    cipher.setAAD(Buffer.from(this.keyHash));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  }

  /** The response sealed by `seal`; throws if it was sealed under another credential or altered. */
  open(sealed: string): StoredResponse {
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv(
      'aes-256-gcm',
      this.mac('seal', this.idempotencyKey),
      bytes.subarray(0, IV_BYTES),
    );
    decipher.setAAD(Buffer.from(this.keyHash));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as StoredResponse;
  }
}

/**
 * JSON with object keys sorted at every depth, so that `{"a":1,"b":2}` and `{"b":2, "a":1}` are one
 * request. No body at all (`undefined`) is distinct from a JSON `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, (_key, inner: unknown) =>
      inner && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(
            Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
          )
        : inner,
    );
  } catch (error) {
    // Thousands of levels of nesting outrun the stack (JSON.parse took them): no body of the
    // API is nested more than a few levels, so this is a bad request, never a 500.
    if (error instanceof RangeError) throw invalidInput('The request body is nested too deeply.');
    throw error;
  }
}
