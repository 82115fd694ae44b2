/** The web app's session: /auth/* (outside the published /v1 interface). */
import { Type, type Static } from 'typebox';
import { NarrowString, Uuid } from './common.js';
import type { Role } from './enums.js';

export const SessionInfo = Type.Object({
  user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
  team: Type.Object({ id: Type.String(), name: Type.String() }),
  role: NarrowString<Role>(),
  teams: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: NarrowString<Role>() })),
  csrfToken: Type.String({ description: 'Send it as x-csrf-token with every change made with this session.' }),
});
export type SessionInfo = Static<typeof SessionInfo>;

const TeamId = Uuid({ errorMessage: 'teamId must be a team ID (UUID).' });
const Password = (name: string) =>
  Type.String({ minLength: 8, maxLength: 200, errorMessage: `${name} must be 8 to 200 characters long.` });

export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320, errorMessage: 'email is required.' }),
    password: Type.String({ minLength: 1, maxLength: 200, errorMessage: 'password is required.' }),
    teamId: Type.Optional(TeamId),
  },
  { additionalProperties: false },
);
export type SignInBody = Static<typeof SignInBody>;

export const SwitchTeamBody = Type.Object({ teamId: TeamId }, { additionalProperties: false });
export type SwitchTeamBody = Static<typeof SwitchTeamBody>;

export const ProfileBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      errorMessage: 'name must be 1 to 200 characters with at least one non-whitespace character.',
    }),
  },
  { additionalProperties: false },
);
export type ProfileBody = Static<typeof ProfileBody>;

export const PasswordChangeBody = Type.Object(
  {
    currentPassword: Type.String({ errorMessage: 'currentPassword is required.' }),
    newPassword: Password('newPassword'),
  },
  { additionalProperties: false },
);
export type PasswordChangeBody = Static<typeof PasswordChangeBody>;

export const SignedOut = Type.Object({ signedOut: Type.Boolean() });
export type SignedOut = Static<typeof SignedOut>;
export const PasswordChanged = Type.Object({ changed: Type.Boolean() });
export type PasswordChanged = Static<typeof PasswordChanged>;
