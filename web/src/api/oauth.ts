/** The OAuth consent page's endpoints (issue 33): what the application asks, and the person's answer. */
import { get, post } from './client';
import type { ConsentAnswer, ConsentBody, ConsentInfo } from '@contract';

/** The authorization request's parameters: those of the page's own query that the server knows. */
const PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'resource',
] as const;

export function authorizationRequest(search: string): URLSearchParams {
  const all = new URLSearchParams(search);
  const known = new URLSearchParams();
  for (const name of PARAMS) {
    const value = all.get(name);
    if (value !== null) known.set(name, value);
  }
  return known;
}

export const fetchConsentInfo = (request: URLSearchParams) => get<ConsentInfo>('/auth/oauth/authorize', request);

export const answerConsent = (request: URLSearchParams, answer: Pick<ConsentBody, 'decision' | 'scopes' | 'listIds'>) =>
  post<ConsentAnswer>('/auth/oauth/authorize', {
    ...(Object.fromEntries(request) as unknown as ConsentBody),
    ...answer,
  } satisfies ConsentBody);
