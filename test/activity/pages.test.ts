/**
 * Pages bounded by size (docs/api.md, "Page sizes"): a page of a task's activity or comments holds
 * at most MAX_PAGE_BYTES of JSON however large its items are, a description's texts are shortened
 * in pages and whole in GET …/activity/{entryId}, and the Link header leads through the rest of
 * the list, each item exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_PAGE_BYTES, SHORTENED_TEXT_LENGTH } from '../../src/contract/index.js';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type Response, type TestServer } from '../harness.js';
import { newList, newTask, type Entry } from './support.js';

/**
 * A text of `length` characters (code points) made of what JSON writes largest: control
 * characters (`\u0001`: 6 bytes) and emoji (4 bytes, and two UTF-16 units: a cut must not split
 * one). It starts with `label`, so each is recognisable.
 */
function largestText(label: string, length: number): string {
  const cycle = ['😀', '\u0001', '\u0002', '\u0003'];
  const head = [...`${label} `];
  return [...head, ...Array.from({ length: length - head.length }, (_, i) => cycle[i % cycle.length]!)].join('');
}

/** The first `length` characters (code points) of `text`. */
const prefix = (text: string, length = SHORTENED_TEXT_LENGTH) => [...text].slice(0, length).join('');

const NEXT = /^<([^<>]+)>; rel="next"$/;

/**
 * Reads a list from `path` to its end, following each answer's Link header, and checks every page
 * stays within MAX_PAGE_BYTES and that the header asks for exactly the next page: `path` with the
 * cursor moved past the page's last item.
 */
async function readAll(reader: Actor, path: string, cursor: string): Promise<{ pages: number[]; items: any[] }> {
  const pages: number[] = [];
  const items: any[] = [];
  for (let next: string | undefined = path; next !== undefined;) {
    const response: Response = await reader.api.get(next);
    const page: { id: number }[] = expectStatus(response, 200);
    const bytes = Buffer.byteLength(response.text);
    assert.ok(bytes <= MAX_PAGE_BYTES, `a page of ${bytes} bytes (${page.length} items) from ${next}`);
    pages.push(page.length);
    items.push(...page);
    const link: string | null = response.headers.get('link');
    if (link === null) break;
    const target: string | undefined = NEXT.exec(link)?.[1];
    assert.ok(target, `a Link header that names no next page: ${link}`);
    const expected: URL = new URL(next, 'http://localhost');
    expected.searchParams.set(cursor, String(page.at(-1)!.id));
    assert.equal(target, `${expected.pathname}${expected.search}`);
    next = target;
  }
  return { pages, items };
}

describe(`pages bounded by size (${TEST_STORE})`, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('a page of the largest activity entries stays within 1 MiB, and its Link header leads through every entry once, descriptions shortened to their first 1,000 characters', async () => {
    const { owner } = await createTestTeam(server);
    const task = await newTask(owner);
    const versions = Array.from({ length: 120 }, (_, i) => largestText(`Version ${i}`, 100_000));
    for (const description of versions) {
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { description }), 200);
    }

    const { pages, items } = await readAll(owner, `/v1/tasks/${task.id}/activity?limit=200`, 'before');
    const entries = items as Entry[];
    assert.ok(pages.length >= 2 && pages[0]! < 200, `the first page is cut by its size: ${pages.join(', ')} entries`);
    assert.equal(entries.length, versions.length + 1, 'every entry, once');
    assert.ok(
      entries.every((e, i) => i === 0 || e.id < entries[i - 1]!.id),
      'newest first, never repeated',
    );
    assert.equal(entries.at(-1)!.kind, 'task.created');
    const updates = entries.slice(0, -1).reverse();
    for (const [i, entry] of updates.entries()) {
      const from = i === 0 ? null : versions[i - 1]!;
      assert.equal(entry.shortened, true, `entry ${entry.id}`);
      assert.deepEqual(entry.changes, {
        description: { from: from && prefix(from), to: prefix(versions[i]!) },
      });
    }

    // The whole entry: both texts in full.
    for (const i of [0, 1, versions.length - 1]) {
      const whole: Entry = expectStatus(await owner.api.get(`/v1/tasks/${task.id}/activity/${updates[i]!.id}`), 200);
      assert.deepEqual(whole, {
        ...updates[i],
        changes: { description: { from: i === 0 ? null : versions[i - 1], to: versions[i] } },
        shortened: false,
      });
    }
  });

  test('texts of at most 1,000 characters come whole (shortened false); one character more is shortened; a page full by count says more remain', async () => {
    const { owner } = await createTestTeam(server);
    const fits = 'é'.repeat(SHORTENED_TEXT_LENGTH);
    const task = await newTask(owner, { description: fits });
    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { description: `${fits}!`, title: 'Renamed' }), 200);
    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { description: null }), 200);

    const first = await owner.api.get(`/v1/tasks/${task.id}/activity?limit=2`);
    const [cleared, longer]: Entry[] = expectStatus(first, 200);
    assert.equal(first.headers.get('link'), `</v1/tasks/${task.id}/activity?limit=2&before=${longer!.id}>; rel="next"`);
    assert.deepEqual([cleared!.changes.description, cleared!.shortened], [{ from: fits, to: null }, true]);
    assert.deepEqual(longer!.changes, {
      title: { from: 'A task', to: 'Renamed' },
      description: { from: fits, to: fits },
    });
    assert.equal(longer!.shortened, true);

    const last = await owner.api.get(`/v1/tasks/${task.id}/activity?limit=2&before=${longer!.id}`);
    const [created]: Entry[] = expectStatus(last, 200);
    assert.equal(last.headers.get('link'), null, 'the last page names no next one');
    assert.deepEqual([created!.kind, created!.shortened], ['task.created', false]);

    const whole: Entry = expectStatus(await owner.api.get(`/v1/tasks/${task.id}/activity/${longer!.id}`), 200);
    assert.deepEqual(whole.changes.description, { from: fits, to: `${fits}!` });
  });

  test("GET …/activity/{entryId} answers as the task does for a missing, foreign or inaccessible task, 404 for an entry that is not the task's, 400 for a malformed id, and names only lists the reader may see", async () => {
    const team = await createTestTeam(server);
    const { owner } = team;
    const mate = await team.member();
    const outsider = await team.member();
    const stranger = (await createTestTeam(server)).owner;
    const shared = await newList(owner, 'Shared', [mate]);
    const secret = await newList(owner, 'Secret');
    const task = await newTask(owner, { taskListIds: [shared.id] });
    const other = await newTask(owner);
    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { taskListIds: [shared.id, secret.id] }), 200);
    const [moved]: Entry[] = expectStatus(await owner.api.get(`/v1/tasks/${task.id}/activity?limit=1`), 200);
    const path = `/v1/tasks/${task.id}/activity/${moved!.id}`;

    // The mate is on the shared list only: the secret list is left out of the set, so the change
    // shows no difference to them and is left out, in the page and in the whole entry alike.
    const [seen]: Entry[] = expectStatus(await mate.api.get(`/v1/tasks/${task.id}/activity?limit=1`), 200);
    assert.deepEqual(expectStatus(await mate.api.get(path), 200), seen);
    assert.deepEqual(seen!.changes, {});
    const ownView: Entry = expectStatus(await owner.api.get(path), 200);
    assert.deepEqual(ownView.changes.taskLists!.to, [
      { id: shared.id, name: 'Shared' },
      { id: secret.id, name: 'Secret' },
    ]);

    expectError(await outsider.api.get(path), 403, 'You do not have access to this task.');
    expectError(await stranger.api.get(path), 404, `Task ${task.id} not found.`);
    expectError(await owner.api.get(`/v1/tasks/999999/activity/${moved!.id}`), 404, 'Task 999999 not found.');
    expectError(
      await owner.api.get(`/v1/tasks/${other.id}/activity/${moved!.id}`),
      404,
      `Activity entry ${moved!.id} not found.`,
    );
    for (const id of ['2147483647', '99999999999']) {
      expectError(await owner.api.get(`/v1/tasks/${task.id}/activity/${id}`), 404, `Activity entry ${id} not found.`);
    }
    expectError(await owner.api.get(`/v1/tasks/${task.id}/activity/abc`), 400, 'entryId must be a number.');
    expectError(await server.client().get(path), 401);
  });

  test('a page of the largest comments stays within 1 MiB, and its Link header leads through every comment once, each whole', async () => {
    const { owner } = await createTestTeam(server);
    const task = await newTask(owner);
    const bodies = Array.from({ length: 14 }, (_, i) => largestText(`Comment ${i}`, 20_000));
    for (const body of bodies) expectStatus(await owner.api.post(`/v1/tasks/${task.id}/comments`, { body }), 201);

    const { pages, items } = await readAll(owner, `/v1/tasks/${task.id}/comments?limit=200`, 'after');
    assert.ok(pages.length >= 2 && pages[0]! < bodies.length, `the first page is cut by its size: ${pages.join(', ')}`);
    assert.deepEqual(
      items.map((c) => c.body),
      bodies,
      'every comment once, oldest first, never shortened',
    );
  });
});
