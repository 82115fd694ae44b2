/**
 * What the team suites (invitations, members, workflow statuses) share: invitations made over the
 * API, the token in a link, and accepting from a fresh browser.
 */
import assert from 'node:assert/strict';
import { Browser } from '../browser.js';
import type { Actor } from '../factories.js';
import { expectStatus, type TestServer } from '../harness.js';

/** The token in an invitation link: everything after `/join#`. */
export function tokenOf(link: string): string {
  const match = /\/join#(tli_[A-Za-z0-9_-]+)$/.exec(link);
  assert.ok(match, `not an invitation link: ${link}`);
  return match[1]!;
}

/** An invitation `by` makes over the API (201), with its token. */
export async function invite(
  by: Actor,
  body: { role: string; email?: string | null; expiresInDays?: number } = { role: 'member' },
): Promise<{ id: string; link: string; token: string; [field: string]: unknown }> {
  const created = expectStatus(await by.api.post('/v1/invitations', body), 201);
  return { ...created, token: tokenOf(created.link) };
}

let newcomers = 0;
/** A newcomer's email no other test uses. */
export const newEmail = () => `newcomer.${process.pid}.${++newcomers}.${Date.now()}@example.test`;

/** POST /auth/accept-invitation from a browser with no session; the browser keeps what it sets. */
export async function accept(server: TestServer, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const browser = new Browser(server.url, headers);
  const response = await browser.post('/auth/accept-invitation', body);
  if (response.status === 200) browser.csrfToken = response.body.csrfToken;
  return { browser, response };
}
