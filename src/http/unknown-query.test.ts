import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closestNames, editDistance, unknownQueryMessage } from './unknown-query.js';

const TASK_FILTERS = [
  'taskListId',
  'query',
  'assigneeId',
  'taskStatusId',
  'isCompleted',
  'priority',
  'dueDateFrom',
  'dueDateTo',
  'parentId',
  'limit',
];

test('editDistance counts single-character insertions, deletions and substitutions', () => {
  assert.equal(editDistance('', ''), 0);
  assert.equal(editDistance('limit', 'limit'), 0);
  assert.equal(editDistance('limt', 'limit'), 1);
  assert.equal(editDistance('qeury', 'query'), 2);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
});

test('closestNames suggests the same name in another case, a name containing it, or one a few typos away', () => {
  const cases: [string, string[]][] = [
    ['TaskListId', ['taskListId']],
    ['listId', ['taskListId']],
    ['status', ['taskStatusId']],
    ['assignee', ['assigneeId']],
    ['assigneeIds', ['assigneeId']],
    ['taskListId[]', ['taskListId']],
    ['limt', ['limit']],
    ['qeury', ['query']],
    ['completed', ['isCompleted']],
    ['dueDate', ['dueDateFrom', 'dueDateTo']],
    ['from', ['dueDateFrom']],
  ];
  for (const [name, expected] of cases) assert.deepEqual(closestNames(name, TASK_FILTERS), expected, name);
});

test('closestNames suggests nothing for a name that is not close to any known one', () => {
  for (const name of ['page', 'sort', 'id', 'q', 'x', '__proto__', 'constructor', '']) {
    assert.deepEqual(closestNames(name, TASK_FILTERS), [], name);
  }
  assert.deepEqual(closestNames('listId', []), []);
});

test('unknownQueryMessage names the parameter and the closest known one, else the known ones, else says there are none', () => {
  assert.equal(unknownQueryMessage('listId', TASK_FILTERS), 'Unknown query parameter listId. Did you mean taskListId?');
  assert.equal(
    unknownQueryMessage('dueDate', TASK_FILTERS),
    'Unknown query parameter dueDate. Did you mean dueDateFrom or dueDateTo?',
  );
  assert.equal(
    unknownQueryMessage('page', TASK_FILTERS),
    `Unknown query parameter page. This endpoint takes ${TASK_FILTERS.join(', ')}.`,
  );
  assert.equal(
    unknownQueryMessage('page', []),
    'Unknown query parameter page. This endpoint takes no query parameters.',
  );
});

test('unknownQueryMessage points a header sent as a query parameter to its header', () => {
  for (const name of ['lastEventId', 'last-event-id', 'Last_Event_ID']) {
    assert.equal(
      unknownQueryMessage(name, []),
      `Unknown query parameter ${name}. Send it as the Last-Event-ID header instead.`,
    );
  }
  assert.match(unknownQueryMessage('idempotencyKey', []), /Send it as the Idempotency-Key header instead\.$/);
  // Names of Object.prototype's members are names like any other.
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    assert.equal(
      unknownQueryMessage(name, []),
      `Unknown query parameter ${name}. This endpoint takes no query parameters.`,
    );
  }
});

test('unknownQueryMessage explains a parameter with no name and cuts a very long name', () => {
  assert.equal(
    unknownQueryMessage('', TASK_FILTERS),
    'The query string has a parameter with no name (an = with nothing before it).',
  );
  const message = unknownQueryMessage('y'.repeat(5000), []);
  assert.ok(message.startsWith(`Unknown query parameter ${'y'.repeat(60)}.... `), message);
  assert.ok(message.length < 200, message);
});
