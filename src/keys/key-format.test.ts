/**
 * The key format on its own (no database): prefix, 256 random bits, a checksum that catches
 * every typo a person makes copying a key, and the old format still recognised.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import { crc32, generateApiKey, KEY_PREFIX, keyShape } from './key-format.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = /^tlk_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/;

/** Every key that differs from `key` by one changed character or one swap of neighbours. */
function typosOf(key: string): string[] {
  const typos: string[] = [];
  for (let i = 0; i < key.length; i++) {
    for (const c of BASE62 + '_-') if (c !== key[i]) typos.push(key.slice(0, i) + c + key.slice(i + 1));
    if (i + 1 < key.length && key[i] !== key[i + 1]) {
      typos.push(key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2));
    }
  }
  return typos;
}

describe('API key format', () => {
  test('crc32 is the standard CRC-32 (check value of "123456789", and zlib where Node has it)', () => {
    assert.equal(crc32('123456789'), 0xcbf43926);
    const zlibCrc = (zlib as { crc32?: (text: string) => number }).crc32;
    if (zlibCrc)
      for (let i = 0; i < 200; i++) {
        const text = randomBytes(40).toString('base64');
        assert.equal(crc32(text), zlibCrc(text), text);
      }
  });

  test('a key is tlk_ + 43 base62 characters holding 32 random bytes + 6 checksum characters', () => {
    const keys = Array.from({ length: 2_000 }, () => generateApiKey());
    const seen = new Set<string>();
    const used = new Set<string>();
    for (const { key, displayPrefix } of keys) {
      const match = SHAPE.exec(key);
      assert.ok(match, `bad shape: ${key}`);
      assert.equal(keyShape(key), 'current');
      assert.ok(key.startsWith(displayPrefix) && displayPrefix.startsWith(KEY_PREFIX));
      assert.ok(displayPrefix.length <= KEY_PREFIX.length + 8, 'the displayed prefix shows too much of the secret');
      // 43 base62 digits can exceed 256 bits, but a value made from 32 bytes never does.
      let value = 0n;
      for (const c of match[1]!) value = value * 62n + BigInt(BASE62.indexOf(c));
      assert.ok(value < 1n << 256n);
      seen.add(match[1]!);
      for (const c of match[1]!.slice(1)) used.add(c);
    }
    assert.equal(seen.size, keys.length, 'two keys share a secret');
    assert.equal(used.size, 62, 'the secret does not use the whole alphabet: not random enough');
  });

  test('every single-character typo and every swap of neighbouring characters fails the checksum', () => {
    for (let round = 0; round < 5; round++) {
      const { key } = generateApiKey();
      for (const typo of typosOf(key)) assert.equal(keyShape(typo), 'malformed', `${key} → ${typo}`);
    }
  });

  test('truncated, extended, padded or foreign keys are malformed; old tl_<8>_<32> keys are legacy', () => {
    const { key } = generateApiKey();
    for (const bad of [key.slice(0, -1), `${key}x`, ` ${key}`, `${key}\n`, key.toUpperCase(), '', 'tl_nope_nope']) {
      assert.equal(keyShape(bad), 'malformed', JSON.stringify(bad));
    }
    const legacy = `tl_${randomBytes(6).toString('base64url')}_${randomBytes(24).toString('base64url')}`;
    assert.equal(keyShape(legacy), 'legacy');
    assert.equal(keyShape(`${legacy}x`), 'malformed');
  });
});
