/**
 * The shape of an API key, checked before any database work.
 *
 * A key is `tlk_` + 43 base62 characters (32 random bytes, 256 bits) + 6 base62 characters of
 * CRC32 over everything before them, like GitHub's tokens: secret scanners can find leaked keys
 * by the prefix and confirm them by the checksum, and the server refuses a mistyped or truncated
 * key without reading the database (CRC32 catches every single-character change and every swap
 * of two neighbouring characters).
 *
 * Keys made before this format (`tl_<8>_<32>`, base64url, no checksum) are still accepted by
 * shape and looked up by hash, so existing deployments keep working; they cannot be told from a
 * mistyped one without that lookup.
 */
import { randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'tlk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256, so 43 digits hold any 32 bytes. */
const SECRET_DIGITS = 43;
/** 62^6 > 2^32, so 6 digits hold any CRC32. */
const CHECKSUM_DIGITS = 6;
/** Characters of the secret shown in listings (about 48 of its 256 bits). */
const DISPLAYED_DIGITS = 8;

const CURRENT_SHAPE = new RegExp(`^${KEY_PREFIX}([0-9A-Za-z]{${SECRET_DIGITS}})([0-9A-Za-z]{${CHECKSUM_DIGITS}})$`);
const LEGACY_SHAPE = /^tl_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{32}$/;

function toBase62(value: bigint, digits: number): string {
  let text = '';
  for (let i = 0; i < digits; i++) {
    text = BASE62[Number(value % 62n)] + text;
    value /= 62n;
  }
  return text;
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (IEEE 802.3, as zlib), written out because zlib.crc32 is missing before Node 20.15. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const checksumOf = (body: string) => toBase62(BigInt(crc32(body)), CHECKSUM_DIGITS);

/** A new key and the start of it that is safe to show in listings. */
export function generateApiKey(): { key: string; displayPrefix: string } {
  const secret = toBase62(BigInt(`0x${randomBytes(32).toString('hex')}`), SECRET_DIGITS);
  const body = KEY_PREFIX + secret;
  return { key: body + checksumOf(body), displayPrefix: body.slice(0, KEY_PREFIX.length + DISPLAYED_DIGITS) };
}

export type KeyShape = 'current' | 'legacy' | 'malformed';

/**
 * What a presented key looks like. Only `current` and `legacy` keys are worth a lookup. The
 * checksum is computed from the presented text alone, so comparing it involves no secret.
 */
export function keyShape(key: string): KeyShape {
  const match = CURRENT_SHAPE.exec(key);
  if (match) return checksumOf(KEY_PREFIX + match[1]!) === match[2] ? 'current' : 'malformed';
  return LEGACY_SHAPE.test(key) ? 'legacy' : 'malformed';
}
