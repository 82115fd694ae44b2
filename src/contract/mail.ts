/**
 * Notification preferences and email: /v1/me/notification-preferences and the unsubscribe link
 * (issue 30; docs/api.md, "Notification email").
 */
import { Type, type Static } from 'typebox';
import { StringEnum } from './common.js';
import { NOTIFICATION_DELIVERIES, NOTIFICATION_KINDS, type NotificationKind } from './enums.js';

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
