/**
 * "Deliveries were queued" within this process (a test, a manual retry): wakes the worker at
 * once instead of at its next poll. Changes' deliveries need no such signal: the outbox's
 * announcement of the change (changes/bus.ts) wakes the workers of every process.
 */
import { ChangePublisher } from '../changes/publisher.js';

export const queuedDeliveries = new ChangePublisher();
