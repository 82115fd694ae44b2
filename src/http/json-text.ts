/**
 * Answers whose JSON the database wrote (a page of tasks: tasks/task-query.ts). Fastify sends a
 * string with a JSON content type as it is, past the route's response serializer; the route's
 * response schema still documents the shape, and the tests check each answer against it.
 */
import type { FastifyReply } from 'fastify';

export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
