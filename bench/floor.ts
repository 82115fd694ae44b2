/**
 * The floor of the HTTP benchmark: a minimal node:http server that calls the same service and
 * storage functions as the real routes and JSON.stringifys the same responses, without
 * Fastify, schema validation (request or response), authentication, rate limiting, ETags or
 * the realtime hub. The caller is fixed (BENCH_USER_ID in BENCH_TEAM_ID, role owner).
 *
 * Run as `node dist/bench/floor.js` with DATABASE_URL, BENCH_USER_ID and BENCH_TEAM_ID; prints
 * `listening on http://127.0.0.1:<port>` like `tasklane serve`.
 */
import http from 'node:http';
import type { Caller } from '../src/caller.js';
import type { Priority } from '../src/contract/enums.js';
import { listLists } from '../src/lists/lists.service.js';
import { openStore } from '../src/storage/database.js';
import type { TaskFilter } from '../src/tasks/task-query.js';
import { createTask, getTask, listTasks, updateTask } from '../src/tasks/tasks.service.js';

const store = openStore(process.env.DATABASE_URL!, { poolSize: 10 });
const caller: Caller = {
  userId: process.env.BENCH_USER_ID!,
  teamId: process.env.BENCH_TEAM_ID!,
  role: 'owner',
  credential: { kind: 'key', id: 'floor' },
};

function filterOf(params: URLSearchParams): TaskFilter {
  const ids = (name: string) => (params.has(name) ? params.getAll(name).map(Number) : undefined);
  const completed = params.get('isCompleted');
  return {
    taskListIds: ids('taskListId'),
    assigneeIds: params.has('assigneeId') ? params.getAll('assigneeId') : undefined,
    statusIds: ids('taskStatusId'),
    priorities: params.has('priority') ? (params.getAll('priority') as Priority[]) : undefined,
    isCompleted: completed === null ? undefined : completed === 'true',
    query: params.get('query') ?? undefined,
    dueDateFrom: params.get('dueDateFrom') ?? undefined,
    dueDateTo: params.get('dueDateTo') ?? undefined,
    parentId: params.has('parentId') ? Number(params.get('parentId')) : undefined,
    limit: params.has('limit') ? Number(params.get('limit')) : 1000,
  };
}

function readBody(req: http.IncomingMessage): Promise<any> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text === '' ? undefined : JSON.parse(text)));
    req.on('error', reject);
  });
}

/** The internal version (the ETag's basis) is not part of a response, as the response schemas say. */
function withoutVersion<T extends { version: number }>(value: T): Omit<T, 'version'> {
  const copy: Partial<T> = { ...value };
  delete copy.version;
  return copy as Omit<T, 'version'>;
}

/** A response body: a value to JSON.stringify, or JSON text the storage functions wrote (a page of tasks). */
class JsonText {
  constructor(readonly text: string) {}
}

async function handle(req: http.IncomingMessage): Promise<[number, unknown]> {
  const url = new URL(req.url!, 'http://floor');
  const taskId = /^\/v1\/tasks\/(\d+)$/.exec(url.pathname)?.[1];
  if (req.method === 'GET' && url.pathname === '/v1/tasks') {
    const page = await listTasks(store, caller, filterOf(url.searchParams));
    return [200, typeof page === 'string' ? new JsonText(page) : page];
  }
  if (req.method === 'POST' && url.pathname === '/v1/tasks') {
    return [201, withoutVersion(await createTask(store, caller, await readBody(req)))];
  }
  if (req.method === 'GET' && taskId) {
    return [200, withoutVersion(await getTask(store, caller, taskId))];
  }
  if (req.method === 'PATCH' && taskId) {
    return [200, withoutVersion(await updateTask(store, caller, taskId, await readBody(req)))];
  }
  if (req.method === 'GET' && url.pathname === '/v1/lists') {
    return [200, (await listLists(store, caller)).map(withoutVersion)];
  }
  return [404, { error: 'not found' }];
}

const server = http.createServer((req, res) => {
  handle(req).then(
    ([status, body]) => {
      const text = body instanceof JsonText ? body.text : JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    },
    (error: unknown) => {
      const text = JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(text);
    },
  );
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening on http://127.0.0.1:${address.port}`);
});
const stop = () => server.close(() => void store.close().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
