/** The web app's session: /auth/* (outside the published /v1 interface). */
import { Type, type Static } from 'typebox';
import { NarrowString, Uuid } from './common.js';
import { MAX_EMAIL_LENGTH } from './invitations.js';
import { TeamName } from './team.js';
import type { Role } from './enums.js';

export const SessionInfo = Type.Object({
  user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
  team: Type.Object({ id: Type.String(), name: Type.String() }),
  role: NarrowString<Role>(),
  teams: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: NarrowString<Role>() })),
  csrfToken: Type.String({ description: 'Send it as x-csrf-token with every change made with this session.' }),
  setupRequired: Type.Boolean({
    description:
      "The team the first start made is not set up yet and the user is its owner: the web app asks for the team's " +
      'name, their name, email and a new password (POST /auth/setup) before anything else.',
  }),
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

const PersonName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  errorMessage: 'name must be 1 to 200 characters with at least one non-whitespace character.',
});

const Email = Type.String({
  minLength: 3,
  maxLength: MAX_EMAIL_LENGTH,
  pattern: '^\\s*[^\\s@]+@[^\\s@]+\\s*$',
  errorMessage: 'email must be an email address.',
});

export const ProfileBody = Type.Object({ name: PersonName }, { additionalProperties: false });
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

/** POST /auth/email: an owner's or admin's own new email, confirmed with their password. */
export const EmailChangeBody = Type.Object(
  {
    email: Email,
    currentPassword: Type.String({ minLength: 1, maxLength: 200, errorMessage: 'currentPassword is required.' }),
  },
  { additionalProperties: false },
);
export type EmailChangeBody = Static<typeof EmailChangeBody>;

/** POST /auth/setup: the first start's team set up by its owner, in one form. */
export const SetupBody = Type.Object(
  {
    teamName: TeamName('teamName'),
    name: PersonName,
    email: Email,
    password: Password('password'),
  },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;
