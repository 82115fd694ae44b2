/** SQLite's prepared-statement cache (storage/database.ts) reuses statements within a bounded size. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { cachePreparedStatements } from './database.js';

test('the statement cache reuses recent statements, forgets the oldest past its budget and never keeps a very long one', () => {
  const database = new BetterSqlite3(':memory:');
  // Each of these statements is 24 characters long: the budget holds three of them.
  cachePreparedStatements(database, 3 * 24, 40);
  const statement = (n: number) => `select ${n} as value_${n}    `.slice(0, 24);
  const first = database.prepare(statement(1));
  assert.equal(database.prepare(statement(1)), first, 'a cached statement is reused');
  const second = database.prepare(statement(2));
  database.prepare(statement(3));
  database.prepare(statement(4));
  assert.notEqual(database.prepare(statement(1)), first, 'the oldest was forgotten once a fourth came');
  assert.equal(database.prepare(statement(4)), database.prepare(statement(4)), 'the newest is kept');
  assert.notEqual(database.prepare(statement(2)), second, 'and the budget still holds');

  const long = `select 1 as ${'x'.repeat(40)}`;
  assert.notEqual(
    database.prepare(long),
    database.prepare(long),
    'a statement over the longest kept is prepared afresh',
  );
  database.close();
});
