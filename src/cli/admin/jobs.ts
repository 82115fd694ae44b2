/** `admin jobs status`: the scheduled jobs (due-date reminders) that every process runs (jobs/job-runner.ts). */
import { clock } from '../../clock.js';
import { jobsStatus } from '../../jobs/scheduled-jobs.repository.js';
import type { CommandGroup } from './command.js';

/** How many of the failing jobs the status lists. */
const LISTED = 20;

export const jobsCommands: CommandGroup = {
  title: 'Scheduled jobs (due-date reminders, run by the servers unless SCHEDULED_JOBS=off)',
  commands: {
    'jobs status': {
      summary:
        'the jobs planned, by kind: how many, how many are due (a server will run them within the minute; ' +
        `more means no server runs them), how many failed and wait to be tried again, the next one's time, and ` +
        `the latest ${LISTED} failing with their error → {"kinds": [{"kind", "planned", "due", "failing", ` +
        '"nextRunAt"}], "failing": [{"id", "kind", "runAt", "attempts", "retryAt", "error"}]}',
      usage: '',
      options: {},
      required: [],
      run: (store) => jobsStatus(store.db, clock.now(), LISTED),
    },
  },
};
