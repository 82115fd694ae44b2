/** Due-date reminder settings: GET/PATCH /v1/me/reminder-settings (issue 30; docs/api.md, "Due-date reminders"). */
import { Type, type Static } from 'typebox';

const TIME_ZONE_DESCRIPTION = 'An IANA time zone name, such as Europe/Berlin or America/New_York. UTC until set.';
const DAYS_BEFORE_DESCRIPTION = '0: on the due day; 1: the day before; up to 7.';
const TIME_DESCRIPTION =
  'The time of day (HH:MM, 24-hour) in timeZone; also the time of the overdue reminder, the day after the due date.';

export const ReminderSettings = Type.Object({
  timeZone: Type.String({ description: TIME_ZONE_DESCRIPTION, examples: ['Europe/Berlin'] }),
  daysBefore: Type.Integer({ minimum: 0, maximum: 7, description: DAYS_BEFORE_DESCRIPTION }),
  time: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: TIME_DESCRIPTION }),
});
export type ReminderSettings = Static<typeof ReminderSettings>;

export const UpdateReminderSettingsBody = Type.Object(
  {
    timeZone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        errorMessage: 'timeZone must be an IANA time zone name, such as Europe/Berlin.',
        description: TIME_ZONE_DESCRIPTION,
        examples: ['Europe/Berlin'],
      }),
    ),
    daysBefore: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7,
        errorMessage: 'daysBefore must be a whole number from 0 to 7.',
        description: DAYS_BEFORE_DESCRIPTION,
      }),
    ),
    time: Type.Optional(
      Type.String({
        pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
        errorMessage: 'time must be a time of day as HH:MM, such as 09:00.',
        description: TIME_DESCRIPTION,
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateReminderSettingsBody = Static<typeof UpdateReminderSettingsBody>;
