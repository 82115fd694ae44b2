/** (extension) POST /auth/setup: the first start's team, set up by its owner at their first sign-in. */
import { errorResponses } from '../contract/common.js';
import { SessionInfo, SetupBody } from '../contract/sessions.js';
import type { App, AppDeps } from '../http/app-types.js';
import { sessionInfo } from '../sessions/sessions.service.js';
import { setUpTeam } from './accounts.service.js';

export function setupRoutes(app: App, _deps: AppDeps): void {
  app.post(
    '/auth/setup',
    {
      config: { scope: 'full' },
      schema: {
        summary:
          "Set up the team the first start made: its name, and its owner's name, email and new password " +
          '(its owner, once, with a web session; SessionInfo.setupRequired says when)',
        tags: ['Web session'],
        body: SetupBody,
        response: { 200: SessionInfo, ...errorResponses(400, 403, 409, 503) },
      },
    },
    async (request) => {
      await setUpTeam(request.store, request.caller, request.body);
      return sessionInfo(request.store, request.caller, request.caller.credential.csrfToken!);
    },
  );
}
