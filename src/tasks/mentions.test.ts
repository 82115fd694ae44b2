/** The mention syntax (docs/api.md, "Notifications"): what `mentionsIn` reads in a text. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mentionsIn } from './mentions.js';

const read = (text: string) => {
  const { emails, names } = mentionsIn(text);
  return { emails: [...emails], names: [...names] };
};

test('@email, @"Full Name" and @Name are mentions; emails and names are folded to lower case', () => {
  assert.deepEqual(read('Ask @Ann@Example.com, then @"Bo Lee" and @Cid.'), {
    emails: ['ann@example.com'],
    names: ['bo lee', 'cid'],
  });
});

test('a plain email address, an @ inside a word and a lone @ mention no one', () => {
  assert.deepEqual(read('Mail ann@example.com or a@b, pay 5 @ 3, x@y'), { emails: [], names: [] });
});

test('a mention may start a text or follow punctuation; a trailing period is not part of it', () => {
  assert.deepEqual(read('@Ann: see (@bo.lee). Thanks, @"Cid Z".'), {
    emails: [],
    names: ['ann', 'bo.lee', 'cid z'],
  });
});

test('a text without @ is not read further', () => {
  assert.deepEqual(read('No one here'), { emails: [], names: [] });
});
