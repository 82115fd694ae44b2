import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import { forbidden } from '../http/errors.js';
import type { EventHub } from './hub.js';
import type { StreamLimits } from './stream-limits.js';

export const LIST_LIMITED_EVENTS_MESSAGE = 'This API key is limited to lists; the event stream is not available to it.';

export function eventsRoutes(hub: EventHub, limits: StreamLimits) {
  return function registerEventsRoutes(app: App, _deps: AppDeps): void {
    app.get(
      '/v1/events',
      {
        config: { scope: 'tasks:read' },
        schema: {
          summary: 'Server-Sent Events stream of list, task and comment changes the caller may read',
          description:
            'text/event-stream. Each event has `id` (increasing per team), `event` (taskList.created|updated|' +
            'archived|unarchived, task.created|updated|deleted, comment.created|updated|deleted) and one line ' +
            'of JSON `data` ({"listId"}, {"taskId"}, or {"taskId", "commentId"}). Send Last-Event-ID to resume; `sync.required` means refetch everything. ' +
            'A `: ping` comment comes at least every 25 seconds. An API key or session may hold ' +
            `${limits.caps.perCredential} streams open on a server process (429 past that), and a process ` +
            `${limits.caps.perProcess} in all (503 with Retry-After past that).`,
          tags: ['Realtime events'],
          response: {
            200: { description: 'An endless text/event-stream.', type: 'string' },
            ...errorResponses(403, 503),
          },
        },
      },
      async (request, reply) => {
        // Filtering every event of the team for one key's lists would cost every change; refused instead.
        if (request.caller.limits?.listIds) throw forbidden(LIST_LIMITED_EVENTS_MESSAGE);
        // A HEAD answer has no body, so a stream would never send its head: answer the head and end.
        if (request.method === 'HEAD') {
          return reply.code(200).type('text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send('');
        }
        // Refused here, over the caps, as a normal JSON answer: nothing is taken over yet.
        limits.admit(request.caller, reply.raw);
        reply.hijack();
        const lastEventId = request.headers['last-event-id'];
        await hub.open(request.caller, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, reply.raw);
      },
    );
  };
}
