import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Member } from '@contract';
import { insertMention, mentionCandidates, mentionQueryAt, mentionText } from './mentions';

const member = (name: string, email: string): Member => ({ id: email, name, email, role: 'member' });
const ann = member('Ann Lee', 'ann@example.test');
const bob = member('Bob', 'bob@example.test');
const otherAnn = member('ann lee', 'ann2@example.test');

test('a mention is being typed after an @ at the start or after a space, not inside an email', () => {
  assert.deepEqual(mentionQueryAt('@an', 3), { start: 0, text: 'an' });
  assert.deepEqual(mentionQueryAt('Hi @', 4), { start: 3, text: '' });
  assert.equal(mentionQueryAt('mail ann@exam', 13), null);
  assert.equal(mentionQueryAt('@ann lee', 8), null);
});

test('candidates match any word of the name or the start of the email, case ignored', () => {
  assert.deepEqual(
    mentionCandidates([ann, bob], 'le').map((m) => m.name),
    ['Ann Lee'],
  );
  assert.deepEqual(
    mentionCandidates([ann, bob], 'BO').map((m) => m.name),
    ['Bob'],
  );
  assert.equal(mentionCandidates([ann, bob], '').length, 2);
});

test('a member is written as the server reads them: one word, a quoted name, or the email when the name is shared', () => {
  assert.equal(mentionText(bob, [ann, bob]), '@Bob');
  assert.equal(mentionText(ann, [ann, bob]), '@"Ann Lee"');
  assert.equal(mentionText(ann, [ann, bob, otherAnn]), '@ann@example.test');
});

test('inserting replaces the typed query and puts the caret after a space', () => {
  assert.deepEqual(insertMention('Hi @an, ok', { start: 3, text: 'an' }, 6, '@"Ann Lee"'), {
    value: 'Hi @"Ann Lee" , ok',
    caret: 14,
  });
});
