/**
 * `node dist/bench/board.js` (after `npm run build`): the board with many cards per column, in
 * headless Chromium against the real `tasklane serve` on SQLite. One list holds BOARD_CARDS
 * tasks (default 500) in each of the three default statuses; the board and, as a baseline in the
 * same run, the list view of the same list (which shows at most the API's 1,000 tasks) are opened
 * ROUNDS times (default 3) and measured in the page: time from navigation until every column is drawn, DOM elements, cards drawn, JS heap.
 * Then, on the board: a column scrolled from top to bottom, a keyboard move (Shift+→) until the
 * card shows in the next column, and a teammate's move (PATCH through the API) until the card
 * moves live. Prints Markdown; figures are medians of the rounds. Needs /usr/bin/chromium.
 */
import { launchBrowser, newContext, type Watch } from '../e2e/support/browser.js';
import { signIn } from '../e2e/support/pages.js';
import { startWorkspace } from '../e2e/support/workspace.js';
import { describeLoad, describeMachine, describeRevision, inParallel, table } from './support.js';

const CARDS = Number(process.env.BOARD_CARDS ?? 500);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (value: number) => value.toFixed(value < 10 ? 1 : 0);

interface PageFigures {
  shownMs: number;
  elements: number;
  cards: number;
  heapMiB: number;
}

/**
 * Waits in the page, frame by frame, until `condition` holds (an expression, as text: the app's
 * CSP refuses Playwright's own waitForFunction, which evaluates strings with eval), then measures
 * the page: the time since navigation began, elements, tasks drawn, heap.
 */
const measureWhen = (condition: string) => `new Promise((resolve, reject) => {
  const giveUp = performance.now() + 120000;
  const check = () => (${condition}) ? resolve(measure())
    : performance.now() > giveUp ? reject(new Error('not drawn within 2 minutes: ' + ${JSON.stringify(condition)}))
    : requestAnimationFrame(check);
  const measure = () => ({
  shownMs: performance.now(),
  elements: document.getElementsByTagName('*').length,
  cards: document.querySelectorAll('.board-card, li.task').length,
  heapMiB: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : NaN,
  });
  check();
})`;

async function main(): Promise<void> {
  const workspace = await startWorkspace();
  const browser = await launchBrowser();
  try {
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await workspace.api(workspace.ada, method, path, body);
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status}`);
      return response.body;
    };
    const statuses: Array<{ id: number; name: string }> = await api('GET', '/v1/task-statuses');
    const list = await api('POST', '/v1/lists', { name: 'Big board', color: 'Blue' });
    await api('POST', `/v1/lists/${list.id}/members`, { userId: workspace.ben.id });
    const started = Date.now();
    const work = statuses.flatMap((status) => Array.from({ length: CARDS }, (_, i) => ({ status, i })));
    await inParallel(work, 8, async ({ status, i }) => {
      await api('POST', '/v1/tasks', {
        title: `${status.name} task ${i + 1}: a title about as long as most`,
        taskListIds: [list.id],
        taskStatusId: status.id,
        priority: ['low', 'medium', 'high', 'urgent', null][i % 5],
        dueDate: i % 3 ? `2027-0${(i % 9) + 1}-1${i % 10}` : null,
        assigneeIds: i % 2 ? [workspace.ada.id] : [workspace.ada.id, workspace.ben.id],
      });
    });
    console.error(`made ${work.length} tasks in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
    const context = await newContext(browser, workspace.url, watch, { width: 1440, height: 900 });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await signIn(page, workspace.ada, 'Rocket');

    // In the page (given as text: no DOM types here): every column's list of cards is drawn.
    const boardDrawn = `${JSON.stringify(statuses.map((s) => `ul[aria-label="${s.name}: ${CARDS} tasks"]`))}
      .every((selector) => document.querySelector(selector))`;
    // The rows show one GET /v1/tasks: at most the API's 1,000 of them.
    const listRows = Math.min(1000, CARDS * statuses.length);
    const listDrawn = `document.querySelectorAll('li.task').length >= ${listRows}`;
    const figures = { board: [] as PageFigures[], list: [] as PageFigures[] };
    for (let round = 0; round < ROUNDS; round++) {
      await page.goto(`/lists/${list.id}?view=board`);
      figures.board.push((await page.evaluate(measureWhen(boardDrawn))) as PageFigures);
      await page.goto(`/lists/${list.id}`);
      figures.list.push((await page.evaluate(measureWhen(listDrawn))) as PageFigures);
    }

    // On the board: a column scrolled from top to bottom, one window's height at a time.
    await page.goto(`/lists/${list.id}?view=board`);
    await page.evaluate(measureWhen(boardDrawn));
    const scroll = (await page.evaluate(`(async () => {
      const body = document.querySelector('.board-column-body');
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const steps = [];
      let most = 0;
      while (body.scrollTop + body.clientHeight < body.scrollHeight - 1) {
        const start = performance.now();
        body.scrollTop += body.clientHeight;
        await frame();
        steps.push(performance.now() - start);
        most = Math.max(most, document.querySelectorAll('.board-card').length);
      }
      steps.sort((a, b) => a - b);
      return { steps: steps.length, median: steps[Math.floor(steps.length / 2)], worst: steps[steps.length - 1], most };
    })()`)) as { steps: number; median: number; worst: number; most: number };

    // A keyboard move: Shift+→ on the first card until it shows in the next column.
    const [first, second, third] = statuses as [(typeof statuses)[0], (typeof statuses)[0], (typeof statuses)[0]];
    await page.evaluate('document.querySelector(".board-column-body").scrollTop = 0');
    const firstCard = page.locator(`[data-status-id="${first.id}"] [data-task-link]`).first();
    const movedTitle = (await firstCard.textContent())!;
    await firstCard.focus();
    const keyStart = Date.now();
    await page.keyboard.press('Shift+ArrowRight');
    await page.locator(`[data-status-id="${second.id}"] [data-task-link]`, { hasText: movedTitle }).first().waitFor();
    const keyMoveMs = Date.now() - keyStart;

    // A teammate's move: PATCH through the API until the card shows in its new column here.
    const tasks: Array<{ id: number; title: string }> = await api(
      'GET',
      `/v1/tasks?taskListId=${list.id}&taskStatusId=${third.id}&limit=1`,
    );
    const target = tasks[0]!;
    const liveStart = Date.now();
    const patched = await workspace.api(workspace.ben, 'PATCH', `/v1/tasks/${target.id}`, { taskStatusId: first.id });
    if (patched.status !== 200) throw new Error(`PATCH: ${patched.status}`);
    await page.locator(`[data-status-id="${first.id}"] [data-task-link]`, { hasText: target.title }).first().waitFor();
    const liveMoveMs = Date.now() - liveStart;
    if (watch.errors.length > 0) throw new Error(`page errors: ${watch.errors.join('; ')}`);

    const row = (name: string, all: PageFigures[]) => [
      name,
      `${fmt(median(all.map((f) => f.shownMs)))} ms`,
      String(median(all.map((f) => f.elements))),
      String(median(all.map((f) => f.cards))),
      `${fmt(median(all.map((f) => f.heapMiB)))} MiB`,
    ];
    console.log(
      [
        `${statuses.length} columns × ${CARDS} tasks (${work.length} in one list), SQLite, Chromium headless at 1440×900; ` +
          `medians of ${ROUNDS} rounds. ${describeMachine()}; ${describeLoad()}; ${describeRevision()}.`,
        '',
        table(
          ['view of the same tasks', 'navigation → all drawn', 'DOM elements', 'tasks drawn', 'JS heap'],
          [
            row(`board (\`?view=board\`), all ${work.length} tasks`, figures.board),
            row(`list (rows; the baseline), the ${listRows} the API answers at most`, figures.list),
          ],
        ),
        '',
        table(
          ['on the board', 'figure'],
          [
            [
              `a column of ${CARDS} scrolled top to bottom, one window at a time (${scroll.steps} steps)`,
              `${fmt(scroll.median)} ms a step (worst ${fmt(scroll.worst)} ms); at most ${scroll.most} cards drawn`,
            ],
            ['Shift+→ until the card shows in the next column', `${keyMoveMs} ms`],
            ['a teammate’s PATCH until the card moves here, live', `${liveMoveMs} ms`],
          ],
        ),
      ].join('\n'),
    );
  } finally {
    await browser.close();
    await workspace.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
