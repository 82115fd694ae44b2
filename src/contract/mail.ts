/**
 * Notification preferences and email: /v1/me/notification-preferences and the unsubscribe link
 * (issue 30; docs/api.md, "Notification email").
 */
import { Type, type Static } from 'typebox';
import { StringEnum } from './common.js';

/** Every kind of notification (the inbox's `kind`). */
export const NOTIFICATION_KINDS = [
  'assigned',
  'unassigned',
  'mentioned',
  'commented',
  'statusChanged',
  'dueSoon',
  'overdue',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Where a kind of notification goes: the inbox, the inbox and email, or nowhere. */
export const NOTIFICATION_DELIVERIES = ['inbox', 'inboxAndEmail', 'off'] as const;
export type NotificationDelivery = (typeof NOTIFICATION_DELIVERIES)[number];

/** Until a person chooses, what goes where: being assigned and being mentioned also by email. */
export const DEFAULT_DELIVERY: Readonly<Record<NotificationKind, NotificationDelivery>> = {
  assigned: 'inboxAndEmail',
  unassigned: 'inbox',
  mentioned: 'inboxAndEmail',
  commented: 'inbox',
  statusChanged: 'inbox',
  dueSoon: 'inbox',
  overdue: 'inbox',
};

const Delivery = StringEnum(NOTIFICATION_DELIVERIES, {
  errorMessage: `each preference must be one of: ${NOTIFICATION_DELIVERIES.join(', ')}.`,
});
const kindsOf = <T>(schema: T) =>
  Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, schema])) as Record<NotificationKind, T>;

export const NotificationPreferences = Type.Object({
  email: Type.Object({
    enabled: Type.Boolean({
      description:
        'Whether this server sends email (SMTP_URL and MAIL_FROM are set); if not, inboxAndEmail means the inbox only.',
    }),
  }),
  preferences: Type.Object(kindsOf(Delivery)),
});
export type NotificationPreferences = Static<typeof NotificationPreferences>;

export const UpdateNotificationPreferencesBody = Type.Object(
  {
    preferences: Type.Object(
      Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, Type.Optional(Delivery)])) as Record<
        NotificationKind,
        ReturnType<typeof Type.Optional<typeof Delivery>>
      >,
      {
        // Unknown kinds are dropped, as every unknown body field is (http/validation.ts).
        additionalProperties: false,
        errorMessage: `preferences must be an object of notification kinds (${NOTIFICATION_KINDS.join(', ')}).`,
      },
    ),
  },
  { additionalProperties: false },
);
export type UpdateNotificationPreferencesBody = Static<typeof UpdateNotificationPreferencesBody>;

export const UnsubscribeParams = Type.Object({
  token: Type.String({ pattern: '^[A-Za-z0-9_-]{20,100}$', errorMessage: 'This unsubscribe link is not valid.' }),
});

export const Unsubscribed = Type.Object({ unsubscribed: Type.Literal(true) });
