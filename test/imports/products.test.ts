/**
 * A Trello board and a Todoist project arrive through the server (issue 32): each file written
 * here in its product's published export format, planned (their people are named, never
 * invented: neither export holds emails), applied, and found in the team as the plan said.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestTeam, type Team } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';
import { csvOf, importFile, uploadImport } from './support.js';

/** A board as Trello's "Export as JSON" writes it (the fields tasklane reads, and some it does not). */
const trelloBoard = {
  id: '5f1a2b3c4d5e6f7a8b9c0d1e',
  name: 'Website relaunch',
  desc: '',
  closed: false,
  prefs: { background: 'blue' },
  lists: [
    { id: 'l1', name: 'To Do', closed: false, pos: 1 },
    { id: 'l2', name: 'Doing', closed: false, pos: 2 },
    { id: 'l3', name: 'Done', closed: false, pos: 3 },
  ],
  labels: [
    { id: 'g1', name: 'Design', color: 'purple' },
    { id: 'g2', name: '', color: 'green' },
  ],
  members: [{ id: 'm1', fullName: 'Grace Hopper', username: 'grace' }],
  cards: [
    {
      id: 'c1',
      name: 'New homepage',
      desc: 'Hero, pricing, **footer**',
      idList: 'l2',
      closed: false,
      due: '2027-03-04T16:00:00.000Z',
      dueComplete: false,
      idLabels: ['g1', 'g2'],
      idMembers: ['m1'],
      idChecklists: ['k1'],
      pos: 1,
    },
    {
      id: 'c2',
      name: 'Old banner',
      desc: '',
      idList: 'l3',
      closed: false,
      due: null,
      dueComplete: false,
      idLabels: [],
      idMembers: [],
      idChecklists: [],
      pos: 2,
    },
    {
      id: 'c3',
      name: 'Archived idea',
      desc: '',
      idList: 'l1',
      closed: true,
      due: null,
      dueComplete: false,
      idLabels: [],
      idMembers: [],
      idChecklists: [],
      pos: 3,
    },
  ],
  checklists: [
    {
      id: 'k1',
      idCard: 'c1',
      name: 'Checklist',
      checkItems: [
        { id: 'i1', name: 'Draft copy', state: 'complete', pos: 1 },
        { id: 'i2', name: 'Pick photos', state: 'incomplete', pos: 2 },
      ],
    },
  ],
  actions: [
    {
      id: 'a1',
      type: 'commentCard',
      date: '2027-01-02T10:00:00.000Z',
      data: { text: 'Looks great!', card: { id: 'c1', name: 'New homepage' } },
      memberCreator: { id: 'm1', fullName: 'Grace Hopper', username: 'grace' },
    },
    { id: 'a2', type: 'updateCard', date: '2027-01-01T10:00:00.000Z', data: { card: { id: 'c1' } } },
  ],
};

describe('imports from Trello and Todoist', () => {
  let server: TestServer;
  let team: Team;

  before(async () => {
    server = await startTestServer({ SCHEDULED_JOBS: 'on', JOBS_POLL_MS: '200' });
    team = await createTestTeam(server);
  });
  after(() => server.close());

  const detailsOf = async (title: string) => {
    const summary = expectStatus(await team.owner.api.get('/v1/tasks?limit=1000'), 200).find(
      (t: any) => t.title === title,
    );
    assert.ok(summary, `no task "${title}"`);
    return expectStatus(await team.owner.api.get(`/v1/tasks/${summary.id}`), 200);
  };

  it('a Trello board: columns as statuses, cards as tasks, checklist items as subtasks, comments naming their author', async () => {
    const file = JSON.stringify(trelloBoard);
    const planned = expectStatus(
      await uploadImport(team.owner.api, file, { source: 'trello' }, { fileName: 'board.json' }),
      201,
    );
    const { kinds, people, problems } = planned.plan;
    assert.equal(kinds.list.create, 1);
    assert.equal(kinds.task.create, 4, 'two cards and two checklist items; the archived card is not');
    assert.deepEqual(
      people.unknown.map((p: any) => p.name),
      ['Grace Hopper'],
    );
    assert.ok(
      problems.some((p: any) => /archived/i.test(p.message)),
      JSON.stringify(problems),
    );
    await importFile(team.owner.api, file, { source: 'trello' });

    const homepage = await detailsOf('New homepage');
    assert.equal(homepage.status.name, 'Doing');
    assert.equal(homepage.description, 'Hero, pricing, **footer**');
    assert.equal(homepage.dueDate, '2027-03-04');
    assert.deepEqual(homepage.labels.map((l: any) => l.name).sort(), ['Design', 'Green']);
    assert.deepEqual(
      homepage.taskLists.map((l: any) => l.name),
      ['Website relaunch'],
    );
    assert.deepEqual(homepage.assignees, [], 'Grace is no member: not invented');
    const comments = expectStatus(await team.owner.api.get(`/v1/tasks/${homepage.id}/comments`), 200);
    const bodies = (comments.items ?? comments).map((c: any) => c.body);
    assert.equal(bodies.length, 1);
    assert.match(bodies[0], /Grace Hopper wrote:[\s\S]*Looks great!/);
    const draft = await detailsOf('Draft copy');
    assert.equal(draft.parent.title, 'New homepage');
    assert.equal(draft.isCompleted, true);
    assert.equal((await detailsOf('Old banner')).isCompleted, true, 'in the Done column');
  });

  it('a Todoist project: the file names the list, sections become labels, indents subtasks, notes comments', async () => {
    const file = csvOf([
      [
        'TYPE',
        'CONTENT',
        'DESCRIPTION',
        'PRIORITY',
        'INDENT',
        'AUTHOR',
        'RESPONSIBLE',
        'DATE',
        'DATE_LANG',
        'TIMEZONE',
      ],
      ['task', 'Buy paint', 'White, matte', '1', '1', 'Sam Doe (123)', '', '2027-05-06', 'en', 'Europe/Berlin'],
      ['task', 'Pick a colour', '', '4', '2', 'Sam Doe (123)', '', '', 'en', 'Europe/Berlin'],
      ['note', 'The blue one?', '', '', '', 'Sam Doe (123)', '', '', 'en', 'Europe/Berlin'],
      [],
      ['section', 'Garden', '', '', '', '', '', '', '', ''],
      ['task', 'Mow the lawn', '', '3', '1', 'Sam Doe (123)', '', 'every sunday', 'en', 'Europe/Berlin'],
    ]);
    const planned = expectStatus(
      await uploadImport(team.owner.api, file, { source: 'todoist' }, { fileName: 'Home.csv' }),
      201,
    );
    assert.equal(planned.plan.kinds.task.create, 3);
    assert.equal(planned.plan.kinds.comment.create, 1);
    assert.ok(
      planned.plan.problems.some((p: any) => p.line === 7 && /every sunday/.test(p.message)),
      JSON.stringify(planned.plan.problems),
    );
    await importFile(team.owner.api, file, { source: 'todoist' }, 'Home.csv');

    const paint = await detailsOf('Buy paint');
    assert.equal(paint.priority, 'urgent');
    assert.equal(paint.dueDate, '2027-05-06');
    assert.equal(paint.description, 'White, matte');
    assert.deepEqual(
      paint.taskLists.map((l: any) => l.name),
      ['Home'],
    );
    const colour = await detailsOf('Pick a colour');
    assert.equal(colour.parent.title, 'Buy paint');
    assert.equal(colour.priority, null);
    const comments = expectStatus(await team.owner.api.get(`/v1/tasks/${colour.id}/comments`), 200);
    assert.match((comments.items ?? comments)[0].body, /The blue one\?/);
    const lawn = await detailsOf('Mow the lawn');
    assert.deepEqual(
      lawn.labels.map((l: any) => l.name),
      ['Garden'],
    );
    assert.equal(lawn.priority, 'medium');
    assert.equal(lawn.dueDate, null);
  });
});
