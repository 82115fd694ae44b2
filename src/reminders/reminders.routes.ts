/** Due-date reminder settings (issue 30; docs/api.md, "Due-date reminders"). */
import { errorResponses } from '../contract/common.js';
import { ReminderSettings, UpdateReminderSettingsBody } from '../contract/reminders.js';
import type { App } from '../http/app-types.js';
import * as service from './reminders.service.js';

const tags = ['Notifications'];

export function reminderRoutes(app: App): void {
  app.get(
    '/v1/me/reminder-settings',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'When you are reminded of your due dates, and in which time zone',
        tags,
        response: { 200: ReminderSettings, ...errorResponses() },
      },
    },
    async (request) => service.reminderSettingsFor(request.store, request.caller),
  );

  app.patch(
    '/v1/me/reminder-settings',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Change when you are reminded, or your time zone; your planned reminders move with them',
        tags,
        body: UpdateReminderSettingsBody,
        response: { 200: ReminderSettings, ...errorResponses(400) },
      },
    },
    async (request) => service.updateReminderSettings(request.store, request.caller, request.body),
  );
}
