import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam } from './factories.js';
import { expectFixedError } from './fixed-errors.js';
import { expectError, expectStatus, startTestServer, type TestServer } from './harness.js';

const COLORS = ['Gray', 'Red', 'Orange', 'Yellow', 'Amber', 'Lime', 'Green', 'Teal', 'Sky', 'Blue', 'Purple', 'Pink'];

describe('task lists', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('POST /v1/lists', () => {
    test('creates a non-archived list, Green by default, and the creator can read it', async () => {
      const { owner } = await createTestTeam(server);
      const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Launch' }), 201);
      assert.deepEqual(Object.keys(list).sort(), ['color', 'id', 'isArchived', 'name', 'sharedWithTeam']);
      assert.equal(list.name, 'Launch');
      assert.equal(list.color, 'Green');
      assert.equal(list.isArchived, false);
      assert.equal(typeof list.id, 'number');
      assert.deepEqual(expectStatus(await owner.api.get(`/v1/lists/${list.id}`), 200), list);
    });

    test('accepts every allowed colour', async () => {
      const { owner } = await createTestTeam(server);
      for (const color of COLORS) {
        const list = expectStatus(await owner.api.post('/v1/lists', { name: color, color }), 201);
        assert.equal(list.color, color);
      }
    });

    test('rejects bad input with "Invalid input.", the reason in Error-Detail, and creates nothing', async () => {
      const { owner } = await createTestTeam(server);
      const name = 'name must be a string of 1 to 200 characters with at least one non-whitespace character.';
      const color = `color must be one of: ${COLORS.join(', ')}.`;
      const bad: [unknown, string][] = [
        [{}, 'name is required.'],
        [{ name: '' }, name],
        [{ name: '   ' }, name],
        [{ name: 42 }, name],
        [{ name: null }, name],
        [{ name: 'x', color: 'green' }, color],
        [{ name: 'x', color: 'Magenta' }, color],
        [{ name: 'x', color: null }, color],
        [{ name: 'x'.repeat(201) }, 'name must be at most 200 characters long.'],
        [[], 'The request body must be an object.'],
        ['name', 'The request body must be an object.'],
      ];
      for (const [body, detail] of bad) {
        expectFixedError(await owner.api.post('/v1/lists', body), 'Invalid input.', detail);
      }
      expectFixedError(
        await owner.api.request('POST', '/v1/lists', {
          rawBody: '{"name":',
          headers: { 'content-type': 'application/json' },
        }),
        'Invalid input.',
        'The request body is not valid JSON.',
      );
      assert.deepEqual(expectStatus(await owner.api.get('/v1/lists'), 200), []);
    });

    test('ignores unknown fields such as isArchived', async () => {
      const { owner } = await createTestTeam(server);
      const list = expectStatus(await owner.api.post('/v1/lists', { name: 'x', isArchived: true, id: 5 }), 201);
      assert.equal(list.isArchived, false);
      assert.notEqual(list.id, 5);
    });
  });

  describe('GET /v1/lists', () => {
    test('returns only non-archived lists the caller is a member of, in creation order', async () => {
      const team = await createTestTeam(server);
      const other = await team.member();
      const a = expectStatus(await team.owner.api.post('/v1/lists', { name: 'A' }), 201);
      const b = expectStatus(await team.owner.api.post('/v1/lists', { name: 'B', color: 'Blue' }), 201);
      const archived = expectStatus(await team.owner.api.post('/v1/lists', { name: 'C' }), 201);
      expectStatus(await team.owner.api.post(`/v1/lists/${archived.id}/archive`), 200);
      expectStatus(await other.api.post('/v1/lists', { name: 'Not mine' }), 201);

      assert.deepEqual(expectStatus(await team.owner.api.get('/v1/lists'), 200), [a, b]);
    });

    test('never includes another team’s lists', async () => {
      const one = await createTestTeam(server);
      const two = await createTestTeam(server);
      expectStatus(await one.owner.api.post('/v1/lists', { name: 'Team one' }), 201);
      assert.deepEqual(expectStatus(await two.owner.api.get('/v1/lists'), 200), []);
    });
  });

  describe('GET /v1/lists/{listId}', () => {
    test('a non-member gets 403, another team 404, a missing id 404, a non-numeric id 400', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Private' }), 201);

      expectError(await outsider.api.get(`/v1/lists/${list.id}`), 403, 'You do not have access to this list.');
      expectError(await stranger.api.get(`/v1/lists/${list.id}`), 404, `List ${list.id} not found.`);
      expectError(await team.owner.api.get('/v1/lists/999999'), 404, 'List 999999 not found.');
      expectError(
        await team.owner.api.get('/v1/lists/99999999999999999999'),
        404,
        'List 99999999999999999999 not found.',
      );
      expectFixedError(await team.owner.api.get('/v1/lists/abc'), 'Invalid input.', 'listId must be a number.');
      expectFixedError(await team.owner.api.get('/v1/lists/-1'), 'Invalid input.', 'listId must be a number.');
    });

    test('an archived list can still be fetched by a member', async () => {
      const { owner } = await createTestTeam(server);
      const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Old' }), 201);
      expectStatus(await owner.api.post(`/v1/lists/${list.id}/archive`), 200);
      assert.equal(expectStatus(await owner.api.get(`/v1/lists/${list.id}`), 200).isArchived, true);
    });
  });

  describe('PATCH /v1/lists/{listId}', () => {
    test('changes only the fields given and never the archive state', async () => {
      const { owner } = await createTestTeam(server);
      const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Draft', color: 'Red' }), 201);
      const renamed = expectStatus(await owner.api.patch(`/v1/lists/${list.id}`, { name: 'Final' }), 200);
      assert.deepEqual(renamed, { ...list, name: 'Final' });
      const recoloured = expectStatus(
        await owner.api.patch(`/v1/lists/${list.id}`, { color: 'Teal', isArchived: true }),
        200,
      );
      assert.deepEqual(recoloured, { ...list, name: 'Final', color: 'Teal', isArchived: false });
      assert.deepEqual(expectStatus(await owner.api.patch(`/v1/lists/${list.id}`, {}), 200), recoloured);

      expectStatus(await owner.api.post(`/v1/lists/${list.id}/archive`), 200);
      const whileArchived = expectStatus(
        await owner.api.patch(`/v1/lists/${list.id}`, { name: 'Still archived' }),
        200,
      );
      assert.equal(whileArchived.isArchived, true);
    });

    test('rejects an empty name, a bad colour and a non-numeric id with a 400 that says why, changing nothing', async () => {
      const { owner } = await createTestTeam(server);
      const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Keep', color: 'Sky' }), 201);
      expectError(await owner.api.patch(`/v1/lists/${list.id}`, { name: '  ' }), 400, /name/);
      expectError(await owner.api.patch(`/v1/lists/${list.id}`, { name: 'New', color: 'Black' }), 400, /color/);
      expectError(await owner.api.patch(`/v1/lists/${list.id}`, { name: 7 }), 400, /name/);
      expectError(await owner.api.patch('/v1/lists/x1', { name: 'New' }), 400, 'listId must be a number.');
      assert.deepEqual(expectStatus(await owner.api.get(`/v1/lists/${list.id}`), 200), list);
    });

    test('a non-member gets 403 and another team 404, and nothing changes', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Mine' }), 201);
      expectError(
        await outsider.api.patch(`/v1/lists/${list.id}`, { name: 'Hijack' }),
        403,
        'You do not have access to this list.',
      );
      expectError(
        await stranger.api.patch(`/v1/lists/${list.id}`, { name: 'Hijack' }),
        404,
        `List ${list.id} not found.`,
      );
      assert.equal(expectStatus(await team.owner.api.get(`/v1/lists/${list.id}`), 200).name, 'Mine');
    });
  });

  describe('archive and unarchive', () => {
    test('both are idempotent and move the list out of and back into the collection', async () => {
      const { owner } = await createTestTeam(server);
      const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Cycle' }), 201);
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(expectStatus(await owner.api.post(`/v1/lists/${list.id}/archive`), 200), {
          ...list,
          isArchived: true,
        });
        assert.deepEqual(expectStatus(await owner.api.get('/v1/lists'), 200), []);
      }
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(expectStatus(await owner.api.post(`/v1/lists/${list.id}/unarchive`), 200), list);
        assert.deepEqual(expectStatus(await owner.api.get('/v1/lists'), 200), [list]);
      }
    });

    test('accept an empty JSON body', async () => {
      const { owner } = await createTestTeam(server);
      const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Empty body' }), 201);
      const res = await owner.api.request('POST', `/v1/lists/${list.id}/archive`, {
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(expectStatus(res, 200).isArchived, true);
    });

    test('answer "listId must be a number." to every 400 (the reason in Error-Detail), 403 for a non-member, 404 across teams', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Guarded' }), 201);
      for (const action of ['archive', 'unarchive']) {
        for (const id of ['abc', '1.5']) {
          const res = await team.owner.api.post(`/v1/lists/${id}/${action}`);
          expectFixedError(res, 'listId must be a number.', 'listId must be a number.');
        }
        // Every 400 of archive and unarchive has the spec's body; Error-Detail says what was wrong.
        expectFixedError(
          await team.owner.api.request('POST', `/v1/lists/${list.id}/${action}`, {
            rawBody: '{',
            headers: { 'content-type': 'application/json' },
          }),
          'listId must be a number.',
          'The request body is not valid JSON.',
        );
        expectError(
          await outsider.api.post(`/v1/lists/${list.id}/${action}`),
          403,
          'You do not have access to this list.',
        );
        expectError(await stranger.api.post(`/v1/lists/${list.id}/${action}`), 404, `List ${list.id} not found.`);
      }
      assert.equal(expectStatus(await team.owner.api.get(`/v1/lists/${list.id}`), 200).isArchived, false);
    });
  });

  describe('list members (extension)', () => {
    test('members see each other with roles, add teammates, and an added teammate gains access', async () => {
      const team = await createTestTeam(server);
      const mate = await team.member({ name: 'Mate' });
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Shared' }), 201);
      expectError(await mate.api.get(`/v1/lists/${list.id}`), 403, 'You do not have access to this list.');

      const added = expectStatus(
        await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }),
        201,
      );
      assert.deepEqual(added, { id: mate.userId, name: 'Mate', email: mate.email, role: 'member' });
      expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }), 200);

      assert.deepEqual(expectStatus(await mate.api.get(`/v1/lists/${list.id}`), 200), list);
      const members = expectStatus(await mate.api.get(`/v1/lists/${list.id}/members`), 200);
      assert.deepEqual(
        members.map((m: { id: string; role: string }) => [m.id, m.role]).sort(),
        [
          [team.owner.userId, 'owner'],
          [mate.userId, 'member'],
        ].sort(),
      );
      assert.deepEqual(expectStatus(await mate.api.get('/v1/lists'), 200), [list]);
    });

    test('removing a member takes away their access on the next request; the last member stays', async () => {
      const team = await createTestTeam(server);
      const mate = await team.member();
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Shared' }), 201);
      expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }), 201);
      const removed = expectStatus(await team.owner.api.delete(`/v1/lists/${list.id}/members/${mate.userId}`), 200);
      assert.deepEqual(removed, { listId: list.id, userId: mate.userId, removed: true });
      expectError(await mate.api.get(`/v1/lists/${list.id}`), 403, 'You do not have access to this list.');
      expectError(await team.owner.api.delete(`/v1/lists/${list.id}/members/${mate.userId}`), 404);
      expectError(
        await team.owner.api.delete(`/v1/lists/${list.id}/members/${team.owner.userId}`),
        400,
        'A list must keep at least one member.',
      );
    });

    test('only teammates can be added, only by members, and other teams see nothing', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Shared' }), 201);

      expectError(
        await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: stranger.userId }),
        400,
        /not a member of this team/,
      );
      expectError(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: 'nope' }), 400, /userId/);
      expectError(await team.owner.api.post(`/v1/lists/${list.id}/members`, {}), 400, /userId/);
      expectError(await outsider.api.post(`/v1/lists/${list.id}/members`, { userId: outsider.userId }), 403);
      expectError(await outsider.api.get(`/v1/lists/${list.id}/members`), 403);
      expectError(await stranger.api.get(`/v1/lists/${list.id}/members`), 404, `List ${list.id} not found.`);
      expectError(await stranger.api.post(`/v1/lists/${list.id}/members`, { userId: stranger.userId }), 404);
      assert.equal(expectStatus(await team.owner.api.get(`/v1/lists/${list.id}/members`), 200).length, 1);
    });
  });
});

describe('archived lists (extension)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('GET /v1/lists?archived=true returns only the caller’s archived lists; a bad value is a 400', async () => {
    const team = await createTestTeam(server);
    const other = await team.member();
    const open = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Open' }), 201);
    const old = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Old' }), 201);
    const theirs = expectStatus(await other.api.post('/v1/lists', { name: 'Theirs' }), 201);
    expectStatus(await team.owner.api.post(`/v1/lists/${old.id}/archive`), 200);
    expectStatus(await other.api.post(`/v1/lists/${theirs.id}/archive`), 200);

    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/lists?archived=true'), 200), [
      { ...old, isArchived: true },
    ]);
    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/lists?archived=false'), 200), [open]);
    expectError(await team.owner.api.get('/v1/lists?archived=yes'), 400, 'archived must be true or false.');
  });
});
