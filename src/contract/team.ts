/** The team and its people: GET /v1/me, GET /v1/users. */
import { Type, type Static } from 'typebox';
import { StringEnum, Uuid } from './common.js';
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

/** PATCH /v1/members/{userId}, DELETE /v1/members/{userId}: a member, by user id. */
export const MemberParams = Type.Object({ userId: Uuid({ errorMessage: 'userId must be a user ID (UUID).' }) });

export const UpdateMemberBody = Type.Object(
  {
    role: StringEnum(ROLES, {
      description: 'The new role. Only an owner may make someone an owner or change an owner.',
      errorMessage: `role must be one of: ${ROLES.join(', ')}.`,
    }),
  },
  { additionalProperties: false },
);
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;

export const MemberRemoved = Type.Object({
  id: Type.String({ description: 'The user ID of the member removed.' }),
  removed: Type.Boolean(),
});
export type MemberRemoved = Static<typeof MemberRemoved>;
