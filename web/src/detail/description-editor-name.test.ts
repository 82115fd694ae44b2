/** The name a description's conflict banner gives (description-editor-name.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ActivityEntry } from '@contract';
import { descriptionEditorName } from './description-editor-name';

const entry = (id: number, actor: ActivityEntry['actor'], changes: ActivityEntry['changes']): ActivityEntry => ({
  id,
  taskId: 1,
  actor,
  kind: 'task.updated',
  changes,
  createdAt: '2026-11-28T12:00:00.000Z',
  shortened: false,
});
const ben = { id: 'ben', name: 'Ben Okafor', email: 'ben@example.test' };
const ada = { id: 'ada', name: 'Ada Lovelace', email: 'ada@example.test' };

describe('who changed the description, for the conflict banner', () => {
  test('names the author of the newest description change, not of a later change to something else', () => {
    const newestFirst = [
      entry(3, ada, { priority: { from: null, to: 'high' } }),
      entry(2, ben, { description: { from: 'a', to: 'b' } }),
      entry(1, ada, { description: { from: null, to: 'a' } }),
    ];
    assert.equal(descriptionEditorName(newestFirst, 'ada'), 'Ben Okafor');
  });

  test('the reader’s own change from elsewhere, and an administrator’s, are said so', () => {
    assert.equal(
      descriptionEditorName([entry(2, ada, { description: { from: 'a', to: 'b' } })], 'ada'),
      'You, in another window,',
    );
    assert.equal(
      descriptionEditorName([entry(2, null, { description: { from: 'a', to: 'b' } })], 'ada'),
      'An administrator',
    );
  });

  test('no description change among the entries: no name', () => {
    assert.equal(descriptionEditorName([entry(1, ben, { title: { from: 'x', to: 'y' } })], 'ada'), null);
  });
});
