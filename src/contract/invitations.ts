/**
 * Invitations (an extension): owners and admins invite people into their team with a link
 * (/v1/invitations); the link's page reads and accepts it without a session (/auth/invitation,
 * /auth/accept-invitation). docs/api.md, "Invitations".
 */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Uuid } from './common.js';
import { ROLES, type Role } from './enums.js';

/** Days an invitation stays usable unless `expiresInDays` says otherwise, and the most it may. */
export const DEFAULT_INVITATION_DAYS = 7;
export const MAX_INVITATION_DAYS = 30;
/** Longest email accepted anywhere (sign-in takes as long). */
export const MAX_EMAIL_LENGTH = 320;

const RoleField = StringEnum(ROLES, {
  description: 'The role the invited person gets. Only an owner may invite an owner.',
  errorMessage: `role must be one of: ${ROLES.join(', ')}.`,
});

const Inviter = Type.Object({ id: Type.String(), name: Type.String() });

export const Invitation = Type.Object({
  id: Type.String(),
  role: Type.Unsafe<Role>({ type: 'string', enum: [...ROLES] }),
  email: Type.Union([Type.String(), Type.Null()], {
    description: 'The only email that may accept it (lower case); null: anyone with the link.',
  }),
  invitedBy: Inviter,
  createdAt: Type.String(),
  expiresAt: Type.String(),
});
export type Invitation = Static<typeof Invitation>;

/** A new invitation with its link: the link (its token) is in this answer only. */
export const CreatedInvitation = Type.Object({
  ...Invitation.properties,
  link: Type.String({
    description: "PUBLIC_URL (or this request's origin) + /join#<token>; shown only here, the token is stored hashed.",
  }),
});
export type CreatedInvitation = Static<typeof CreatedInvitation>;

export const CreateInvitationBody = Type.Object(
  {
    role: RoleField,
    email: Type.Optional(
      Nullable(
        Type.String({
          minLength: 3,
          maxLength: MAX_EMAIL_LENGTH,
          description: 'Only this email may accept it; omitted or null: anyone with the link.',
          errorMessage: 'email must be an email address.',
        }),
      ),
    ),
    expiresInDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_INVITATION_DAYS,
        description: `Days until the link stops working; default ${DEFAULT_INVITATION_DAYS}.`,
        errorMessage: `expiresInDays must be a whole number of days from 1 to ${MAX_INVITATION_DAYS}.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateInvitationBody = Static<typeof CreateInvitationBody>;

export const InvitationIdParams = Type.Object({
  invitationId: Uuid({ errorMessage: 'invitationId must be an invitation ID (UUID).' }),
});

export const InvitationRevoked = Type.Object({ id: Type.String(), revoked: Type.Boolean() });
export type InvitationRevoked = Static<typeof InvitationRevoked>;

const Token = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The token from the link (after /join#).',
  errorMessage: 'token is required: the part of the invitation link after #.',
});

export const InvitationTokenBody = Type.Object({ token: Token }, { additionalProperties: false });
export type InvitationTokenBody = Static<typeof InvitationTokenBody>;

/** What the link's page shows before the person accepts. */
export const InvitationPreview = Type.Object({
  teamName: Type.String(),
  role: Type.Unsafe<Role>({ type: 'string', enum: [...ROLES] }),
  email: Type.Union([Type.String(), Type.Null()], {
    description: 'The email the invitation is for (the page fixes it), or null: any.',
  }),
  invitedBy: Inviter,
  expiresAt: Type.String(),
});
export type InvitationPreview = Static<typeof InvitationPreview>;

export const AcceptInvitationBody = Type.Object(
  {
    token: Token,
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '\\S',
        description:
          "A newcomer's display name, for a new account. Leave it out to join with an existing account; " +
          'given with the email of an existing account, that account joins (with its password) and keeps its name.',
        errorMessage: 'name must be 1 to 200 characters with at least one non-whitespace character.',
      }),
    ),
    email: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_EMAIL_LENGTH,
        description: 'Required unless the invitation names one (then it must be that one).',
        errorMessage: 'email must be an email address.',
      }),
    ),
    password: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "A newcomer's new password (8 to 200 characters), or an existing account's password (also with `name`).",
      errorMessage: 'password is required.',
    }),
  },
  { additionalProperties: false },
);
export type AcceptInvitationBody = Static<typeof AcceptInvitationBody>;
