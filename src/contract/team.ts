/** The team and its people: GET /v1/me, GET /v1/users. */
import { Type, type Static } from 'typebox';
import { ROLES, type Role } from './enums.js';

export const Member = Type.Object({
  id: Type.String({ description: 'User ID (UUID).' }),
  name: Type.String(),
  email: Type.String(),
  role: Type.Unsafe<Role>({ type: 'string', enum: [...ROLES], description: 'Workspace role.' }),
});
export type Member = Static<typeof Member>;

export const TeamRef = Type.Object({ id: Type.String(), name: Type.String() });
export type TeamRef = Static<typeof TeamRef>;

/** Who an API key or session belongs to. */
export const Identity = Type.Object({
  user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
  team: TeamRef,
  role: Type.Unsafe<Role>({ type: 'string', enum: [...ROLES] }),
});
export type Identity = Static<typeof Identity>;
