/**
 * Answers whose JSON the database may have written (a page of tasks on SQLite:
 * tasks/task-query.ts). Fastify sends a string with a JSON content type as it is, past the
 * route's response serializer, and serializes anything else with it as usual. The route's
 * response schema still documents the shape, and test/tasks/summaries.test.ts holds the text
 * to it.
 */
import type { FastifyReply } from 'fastify';

export function sendJson(reply: FastifyReply, body: string | object): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
