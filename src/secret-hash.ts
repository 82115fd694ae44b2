/**
 * The one way a secret (an API key, a session cookie's token) is stored: its sha256, hex. A stolen
 * database then yields no usable credential, and lookups stay one indexed equality.
 */
import { createHash } from 'node:crypto';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
