/**
 * The rules of an edit that loses no update (conflict-safe-edit.ts), which the description editor
 * and a comment's editor share: what a version shown live does to the edit, which version a save
 * goes over, and what "Combine both" starts from.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { combine, editFrom, isOpen, savedOver, seen, type EditState } from './conflict-safe-edit';

const started = editFrom({ text: 'Print in A2.', etag: '"1"' });

/** The If-Match the next save sends. */
function ifMatch(state: EditState): string | null {
  assert.ok(isOpen(state), `nothing to save in ${state.kind}`);
  return savedOver(state);
}

describe('an edit follows the versions shown live', () => {
  test('the same text with a newer ETag (a teammate changed the status) moves the edit forward: no conflict', () => {
    const moved = seen(started, { text: 'Print in A2.', etag: '"2"' });
    assert.deepEqual(moved, editFrom({ text: 'Print in A2.', etag: '"2"' }));
    assert.equal(ifMatch(started), '"1"');
    assert.equal(ifMatch(moved), '"2"', 'the save goes over the version now shown');
  });

  test('another text is announced at once, and the save still goes over the version started from', () => {
    const changed = seen(started, { text: 'Print in A3.', etag: '"2"' });
    assert.deepEqual(changed, { ...started, changedMeanwhile: true });
    assert.equal(ifMatch(changed), '"1"', 'so the server refuses it (412) and shows both');
  });

  test('a version shown without its ETag (a comment in the list) is announced but never moves the edit', () => {
    assert.deepEqual(seen(started, { text: 'Print in A2.' }), started);
    assert.deepEqual(seen(started, { text: 'Print in A3.' }), { ...started, changedMeanwhile: true });
  });

  test('in a conflict, the saved side follows what is shown, and the text kept is saved over it', () => {
    const conflict: EditState = { kind: 'conflict', theirs: { text: 'Print in A3.', etag: '"2"' } };
    const newer = seen(conflict, { text: 'Print in A4.', etag: '"3"' });
    assert.deepEqual(newer, { kind: 'conflict', theirs: { text: 'Print in A4.', etag: '"3"' } });
    assert.equal(ifMatch(newer), '"3"');
    assert.deepEqual(seen(conflict, { text: 'Print in A4.' }), conflict, 'without an ETag: the save learns the rest');
  });

  test('with no editor open, what is shown changes nothing', () => {
    for (const state of [{ kind: 'view' }, { kind: 'opening' }] as const) {
      assert.deepEqual(seen(state, { text: 'Print in A3.', etag: '"2"' }), state);
    }
  });
});

describe('Combine both', () => {
  test('starts from the saved text, then the person’s, a blank line between, one line end after', () => {
    assert.equal(combine('Theirs.\n\n', '  Mine.\n'), 'Theirs.\n\nMine.\n');
  });
});
