import type { KeyScope } from './contract/keys.js';
import type { Role } from './storage/schema.js';

/**
 * What a scoped key (issue 33) or an MCP client's token limits its caller to: null `scopes`, every
 * route (a key without scopes); null `listIds`, every list the user may use. `name`: the key's,
 * for activity made through it.
 */
export interface CallerLimits {
  readonly scopes: readonly KeyScope[] | null;
  readonly listIds: readonly number[] | null;
  readonly name: string;
}

/** Who is asking: an API key or a web session, resolved to one user inside one team. */
export interface Caller {
  readonly userId: string;
  readonly teamId: string;
  /**
   * The user's role in the team, or null when they have left it since the key was made. Read at
   * authentication, and read again by a change inside its transaction (auth/caller-check.ts),
   * which is why a service checks it there.
   */
  role: Role | null;
  /**
   * What authenticated the request; event streams re-check it while they stay open. `webhook`:
   * no request, a webhook reading as its owner to build a delivery (webhooks/delivery/payload.ts).
   * `import`: no request, an import's apply writing as the person who applied it (imports/apply.ts).
   */
  readonly credential: {
    readonly kind: 'key' | 'session' | 'webhook' | 'import';
    readonly id: string;
    /** For sessions: the token every change must echo in `x-csrf-token`. */
    readonly csrfToken?: string;
  };
  /** Set for a scoped key (keys/scopes.ts); absent: the user's full access. */
  readonly limits?: CallerLimits;
  /**
   * Set when the request came through an agent's protocol (MCP, /mcp): the activity of its
   * changes says so, with the key's name (changes/activity-entries.ts). Absent for the API and web app.
   */
  readonly via?: CallerVia;
}

/** How a change was made, when an agent made it: through /mcp, with the named key. */
export interface CallerVia {
  readonly kind: 'agent';
  readonly keyName: string;
}
