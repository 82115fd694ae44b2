import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asHeaderValue } from './error-detail.js';

test('asHeaderValue keeps printable ASCII as it is', () => {
  const text = 'title must be a string of 1 to 500 characters: "x" <y> \\ ~';
  assert.equal(asHeaderValue(text), text);
});

test('asHeaderValue escapes CR, LF, NUL, tabs and every non-ASCII character, so no header can be split or refused', () => {
  assert.equal(asHeaderValue('a\r\nSet-Cookie: x'), 'a\\u000d\\u000aSet-Cookie: x');
  assert.equal(asHeaderValue('\u0000\t\u007f'), '\\u0000\\u0009\\u007f');
  assert.equal(asHeaderValue('é😀'), '\\u00e9\\ud83d\\ude00');
  for (const value of [asHeaderValue('a\r\nb'), asHeaderValue('é😀\u2028')]) {
    assert.match(value, /^[\x20-\x7e]*$/);
  }
});

test('asHeaderValue cuts a long reason to 500 characters', () => {
  const value = asHeaderValue('x'.repeat(2000));
  assert.equal(value.length, 500);
  assert.ok(value.endsWith('...'));
});
