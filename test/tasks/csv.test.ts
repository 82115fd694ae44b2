/**
 * GET /v1/tasks.csv (issue 32): every task GET /v1/tasks lists with the same filters and sort,
 * past a page, as a CSV a spreadsheet opens (BOM, CRLF, RFC 4180 quoting), with no task the
 * caller may not read, and no cell a spreadsheet would run as a formula.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { Client, expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';

/** RFC 4180, as a spreadsheet reads it: rows of cells (quoted cells may hold commas, quotes, line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  assert.equal(cell + row.join(''), '', 'the file ends with a line break');
  return rows;
}

async function csvOf(actor: Actor, query = ''): Promise<{ header: string[]; rows: Record<string, string>[] }> {
  const res = await fetch(`${actor.api.baseUrl}/v1/tasks.csv${query}`, { headers: { 'x-api-key': actor.key } });
  // The bytes, not text(): a UTF-8 decoder drops the byte-order mark this checks for.
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, bytes.toString());
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="tasks-\d{4}-\d{2}-\d{2}\.csv"$/);
  assert.ok(
    bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])),
    'a byte-order mark, so a spreadsheet reads UTF-8',
  );
  const [header = [], ...lines] = parseCsv(bytes.subarray(3).toString('utf8'));
  return { header, rows: lines.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i]!]))) };
}

describe('tasks as CSV', () => {
  let server: TestServer;
  let team: Team;
  before(async () => {
    server = await startTestServer();
    team = await createTestTeam(server);
  });
  after(() => server?.close());

  test('every task of the filter is a row, in the sort asked, past one page (500)', async () => {
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Many' }), 201);
    const titles = Array.from({ length: 520 }, (_, i) => `Task ${String(i).padStart(3, '0')}`);
    for (let i = 0; i < titles.length; i += 20) {
      await Promise.all(
        titles
          .slice(i, i + 20)
          .map(async (title) =>
            expectStatus(await team.owner.api.post('/v1/tasks', { title, taskListIds: [list.id] }), 201),
          ),
      );
    }
    expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Elsewhere' }), 201);

    const { header, rows } = await csvOf(team.owner, `?taskListId=${list.id}&sort=title`);
    assert.deepEqual(header.slice(0, 3), ['Number', 'Title', 'Status']);
    assert.deepEqual(
      rows.map((row) => row.Title),
      titles,
    );
    assert.ok(rows.every((row) => row.Lists === 'Many'));
    // Without a sort: newest first, as GET /v1/tasks.
    const all = await csvOf(team.owner);
    assert.equal(all.rows.length, 521);
    assert.equal(all.rows[0]!.Title, 'Elsewhere');
  });

  test('a cell holds commas, quotes, line breaks and accents intact, and nothing a spreadsheet would run as a formula', async () => {
    const member = await team.member({ name: 'Zoë, "Z" Ng' });
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', {
        title: '=HYPERLINK("http://evil.example","click"), then "quote"\nsecond line',
        assigneeIds: [member.userId],
        priority: 'high',
        dueDate: '2026-12-24',
      }),
      201,
    );
    const { rows } = await csvOf(team.owner, `?assigneeId=${member.userId}`);
    assert.equal(rows.length, 1);
    assert.deepEqual(
      { ...rows[0]!, Created: '', Updated: '', Status: '' },
      {
        Number: String(task.number),
        Title: `'=HYPERLINK("http://evil.example","click"), then "quote"\nsecond line`,
        Status: '',
        Completed: 'no',
        Priority: 'high',
        'Due date': '2026-12-24',
        Assignees: 'Zoë, "Z" Ng',
        'Assignee emails': member.email,
        Lists: '',
        Labels: '',
        'Parent task id': '',
        Created: '',
        Updated: '',
        Id: String(task.id),
      },
    );
  });

  test('a member gets only the tasks they may read', async () => {
    const member = await team.member();
    const secret = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Board only' }), 201);
    expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Not for members', taskListIds: [secret.id] }), 201);
    const mine = expectStatus(await member.api.post('/v1/tasks', { title: 'Mine' }), 201);
    const listed = expectStatus(await member.api.get('/v1/tasks'), 200).map((t: { id: number }) => String(t.id));
    const { rows } = await csvOf(member);
    assert.deepEqual(
      rows.map((row) => row.Id),
      listed,
    );
    assert.ok(rows.some((row) => row.Id === String(mine.id)));
    assert.ok(!rows.some((row) => row.Title === 'Not for members'));
  });

  test('a bad filter or a page parameter is a 400 {"error"}, as on GET /v1/tasks', async () => {
    expectError(await team.owner.api.get('/v1/tasks.csv?sort=colour'), 400);
    expectError(await team.owner.api.get('/v1/tasks.csv?limit=5'), 400);
    expectError(await team.owner.api.get('/v1/tasks.csv?taskListId=abc'), 400);
    expectError(await new Client(server.url).get('/v1/tasks.csv'), 401);
  });
});
