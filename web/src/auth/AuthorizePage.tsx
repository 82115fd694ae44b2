/**
 * The OAuth consent page (issue 33): an MCP client sent the person here (/oauth/authorize, which
 * the server checked first: the client and its redirect URI are known). It names the application
 * and where it sends the person back, lets them choose what it may do (the agent preset checked,
 * or what the application asked for) and, if they like, the only lists it may see; Allow sends
 * them back with a code, Deny with access_denied. Its token is a key in Settings → API keys.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ConsentInfo, TaskList } from '@contract';
import { messageOf } from '../api/client';
import { fetchLists } from '../api/lists';
import { answerConsent, authorizationRequest, fetchConsentInfo } from '../api/oauth';
import { useDocumentTitle } from '../lib/use-document-title';
import { ErrorNote } from '../ui/ErrorNote';

/** What each scope lets the application do, in the person's words. */
const SCOPE_LABELS: Record<string, string> = {
  'tasks:read': 'Read tasks, their comments and history',
  'tasks:write': 'Create and change tasks',
  'comments:write': 'Comment on tasks',
  'lists:read': 'See lists, statuses, labels',
  'lists:write': 'Create and change lists',
  'team:read': "See the team's members",
};

export function AuthorizePage({ teamName }: { teamName: string }) {
  useDocumentTitle('Authorize an application');
  const request = useMemo(() => authorizationRequest(window.location.search), []);
  const [info, setInfo] = useState<ConsentInfo | null>(null);
  const [lists, setLists] = useState<TaskList[]>([]);
  const [scopes, setScopes] = useState<Set<string>>(new Set());
  const [limitTo, setLimitTo] = useState<Set<number>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    fetchConsentInfo(request).then(
      (answer) => {
        setInfo(answer);
        setScopes(new Set(answer.requestedScopes));
      },
      (failure) => setError(messageOf(failure)),
    );
    fetchLists().then(setLists, () => setLists([]));
  }, [request]);

  const toggle = <T,>(set: Set<T>, value: T) => {
    const next = new Set(set);
    if (!next.delete(value)) next.add(value);
    return next;
  };

  const answer = async (decision: 'allow' | 'deny') => {
    setError(null);
    setBusy(true);
    try {
      const { redirectTo } = await answerConsent(request, {
        decision,
        ...(decision === 'allow' && {
          scopes: info!.scopesAvailable.filter((s) => scopes.has(s)),
          ...(limitTo.size > 0 && { listIds: [...limitTo] }),
        }),
      });
      window.location.assign(redirectTo);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <main class="auth-page" id="main">
      <section class="auth-card consent-card" aria-labelledby="consent-heading">
        {!info ? (
          <>
            <h1 id="consent-heading">Authorize an application</h1>
            {error ? <ErrorNote message={error} /> : <p class="muted">Loading…</p>}
          </>
        ) : (
          <>
            <h1 id="consent-heading">
              Allow <strong>{info.clientName}</strong> to use tasklane?
            </h1>
            <p>
              It will act as you in {teamName}, within what you allow here, for {info.tokenDays} days. You will be sent
              back to <strong>{info.redirectHost}</strong>. You can revoke it any time in Settings → API keys.
            </p>
            <fieldset class="member-lists">
              <legend>What it may do</legend>
              {info.scopesAvailable.map((scope) => (
                <label key={scope} class="checkbox-field">
                  <input
                    type="checkbox"
                    checked={scopes.has(scope)}
                    onChange={() => setScopes(toggle(scopes, scope))}
                  />
                  <span>
                    {SCOPE_LABELS[scope] ?? scope}
                    <small class="muted">{scope}</small>
                  </span>
                </label>
              ))}
            </fieldset>
            {lists.length > 0 && (
              <fieldset class="member-lists">
                <legend>Only these lists (none checked: all your lists)</legend>
                {lists.map((list) => (
                  <label key={list.id} class="checkbox-field">
                    <input
                      type="checkbox"
                      checked={limitTo.has(list.id)}
                      onChange={() => setLimitTo(toggle(limitTo, list.id))}
                    />
                    <span>{list.name}</span>
                  </label>
                ))}
              </fieldset>
            )}
            <ErrorNote message={error} />
            <div class="form-actions">
              <button type="button" disabled={busy} onClick={() => void answer('deny')}>
                Deny
              </button>
              <button
                type="button"
                class="button-primary"
                disabled={busy || scopes.size === 0}
                onClick={() => void answer('allow')}
              >
                Allow
              </button>
            </div>
          </>
        )}
      </section>
    </main>
  );
}
