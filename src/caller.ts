import type { Role } from './storage/schema.js';

/** Who is asking: an API key (or, later, a web session) resolved to one user inside one team. */
export interface Caller {
  readonly userId: string;
  readonly teamId: string;
  /** The user's role in the team, or null when they have left it since the key was made. */
  readonly role: Role | null;
  readonly keyId: string;
}
