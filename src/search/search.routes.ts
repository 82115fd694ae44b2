import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import { SearchPage, SearchQuery } from '../contract/search.js';
import * as service from './search.service.js';

export function searchRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/search',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary:
          'Full-text search of the tasks the caller may read: their titles, descriptions and comments, titles first (extension)',
        tags: ['Tasks'],
        querystring: SearchQuery,
        response: { 200: SearchPage, ...errorResponses(400) },
      },
    },
    async (request) => service.search(request.store, request.caller, request.query),
  );
}
