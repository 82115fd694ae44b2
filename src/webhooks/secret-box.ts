/**
 * Webhook secrets at rest. Signing needs the secret itself (an HMAC key cannot be stored as a
 * hash), so the database holds it sealed with AES-256-GCM under the server's WEBHOOK_SECRET_KEY,
 * which lives in the environment and never in the database: a dump or backup of the database
 * alone cannot sign. The webhook's id is the seal's associated data, so a sealed secret copied
 * onto another webhook's row does not open. Only the signer (worker.ts) opens a seal; no answer
 * of the API carries a secret except the one that creates it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export function seal(key: Buffer, secret: Buffer, webhookId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(webhookId));
  const sealed = Buffer.concat([cipher.update(secret), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

/** The secret, or an error when the seal was made with another key (or for another webhook). */
export function open(key: Buffer, sealed: string, webhookId: string): Buffer {
  const [version, body = ''] = sealed.split('.', 2);
  if (version !== VERSION) throw new Error(`unknown seal version ${version}`);
  const raw = Buffer.from(body, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
    .setAAD(Buffer.from(webhookId))
    .setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
}
