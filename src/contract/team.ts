/** The team and its people: GET /v1/me, GET /v1/users, PATCH /v1/team. */
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

/** Longest team name, in characters (Unicode code points), as a list's. */
export const MAX_TEAM_NAME_LENGTH = 200;

/** A team's name, in the field `field`: as a list's, 1 to 200 characters, not only whitespace. */
export const TeamName = (field = 'name') =>
  Type.String({
    minLength: 1,
    maxLength: MAX_TEAM_NAME_LENGTH,
    pattern: '\\S',
    errorMessage: `${field} must be a string of 1 to ${MAX_TEAM_NAME_LENGTH} characters with at least one non-whitespace character.`,
  });

/** PATCH /v1/team: the team's new name (owners and admins). */
export const UpdateTeamBody = Type.Object({ name: TeamName() }, { additionalProperties: false });
export type UpdateTeamBody = Static<typeof UpdateTeamBody>;
