/**
 * The Standard Webhooks wire format's signature (standardwebhooks.com): HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}` with the secret's bytes, written `v1,<base64>`;
 * several signatures (during a secret rotation) are separated by spaces.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret as shown to its owner once: `whsec_` and 32 random bytes in base64. */
export function newSecret(): { shown: string; bytes: Buffer } {
  const bytes = randomBytes(32);
  return { shown: PREFIX + bytes.toString('base64'), bytes };
}

/** `v1,<signature>` of one message with one secret; `timestamp` in whole seconds. */
export function sign(secret: Buffer, messageId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per secret, space-separated. */
export function signatureHeader(
  secrets: readonly Buffer[],
  messageId: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => sign(secret, messageId, timestamp, body)).join(' ');
}

/** The `webhook-id` of a delivery: unique per delivery, the same on each of its attempts. */
export const messageIdOf = (deliveryId: number): string => `msg_${deliveryId}`;
