/**
 * buildApp(deps): the whole HTTP application, ready for `listen` or tests. It never listens itself.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { createEventBus } from './changes/bus.js';
import { bridgeToBus } from './changes/bridge.js';
import type { Config } from './config.js';
import { ERROR_DETAIL_HEADER } from './contract/common.js';
import type { Store } from './storage/database.js';
import { authenticate } from './auth/authenticate.js';
import { SESSION_COOKIE } from './http/session-cookie.js';
import type { App, AppDeps } from './http/app-types.js';
import { registerCors } from './http/cors.js';
import { asHeaderValue } from './http/error-detail.js';
import { AppError } from './http/errors.js';
import { registerIdempotency } from './http/idempotency.js';
import { lingerBeforeClosing } from './http/lingering-close.js';
import { LOG_REDACTION } from './http/log-redaction.js';
import { registerRateLimit } from './http/rate-limit.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { answerClientError } from './http/timeouts.js';
import { bodyDeadline } from './http/body-deadline.js';
import { registerUnknownQueryCheck } from './http/unknown-query.js';
import { validationMessage, validatorCompiler } from './http/validation.js';
import { registerWebApp } from './http/web.js';
import { housekeepingJobs } from './housekeeping.js';
import { Scheduler } from './jobs/scheduler.js';
import { invitationLinkRoutes, invitationsRoutes } from './invitations/invitations.routes.js';
import { agentAccessRoutes } from './keys/agent-access.routes.js';
import { keysRoutes } from './keys/keys.routes.js';
import { consentRoutes, oauthRoutes } from './oauth/oauth.routes.js';
import { registerScopeCheck } from './keys/scopes.js';
import { listsRoutes } from './lists/lists.routes.js';
import { eventsRoutes } from './realtime/events.routes.js';
import { DEFAULT_HUB_OPTIONS, EventHub } from './realtime/hub.js';
import { StreamLimits } from './realtime/stream-limits.js';
import { sessionRoutes, signInRoute } from './sessions/sessions.routes.js';
import { statusesRoutes } from './statuses/statuses.routes.js';
import { labelsRoutes } from './labels/labels.routes.js';
import { teamRoutes } from './team/team.routes.js';
import { memberRoutes } from './membership/members.routes.js';
import { setupRoutes } from './membership/setup.routes.js';
import { isDatabaseUnavailable } from './storage/errors.js';
import { tasksRoutes } from './tasks/tasks.routes.js';
import { webhooksRoutes } from './webhooks/webhooks.routes.js';
import { viewsRoutes } from './views/views.routes.js';
import { notificationsRoutes } from './notifications/notifications.routes.js';
import { DeliveryWorker } from './webhooks/delivery/worker.js';
import { mailRoutes, unsubscribeRoute } from './mail/mail.routes.js';
import { MailWorker } from './mail/worker.js';
import { clock, setClockOffset } from './clock.js';
import { JobRunner } from './jobs/job-runner.js';
import { REMINDER_HANDLERS } from './reminders/fire.js';
import { APPLY_JOB, applyImportBatch } from './imports/apply.js';
import { importsRoutes } from './imports/imports.routes.js';
import { reminderRoutes } from './reminders/reminders.routes.js';
import { activityRoutes } from './activity/activity.routes.js';
import { commentsRoutes } from './comments/comments.routes.js';
import { attachmentsRoutes } from './attachments/attachments.routes.js';
import { createFileStore } from './attachments/storage/index.js';
import { searchRoutes } from './search/search.routes.js';
import { createExportFileStore } from './exports/export-files.js';
import { ExportRunner } from './exports/export-runner.js';
import { exportsRoutes } from './exports/exports.routes.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { registerOriginCheck } from './mcp/origin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's realtime event streams. */
    hub: EventHub;
  }
}

export const API_VERSION = '1.0.0';

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, store } = deps;
  // What this process commits reaches every process through the bus (changes/bridge.ts); the hub
  // and the webhook worker (below) only listen to it.
  const bus = createEventBus(store, config.databaseUrl);
  const stopBridge = bridgeToBus(bus);
  const hub = new EventHub(store, {
    ...DEFAULT_HUB_OPTIONS,
    heartbeatMs: config.eventsHeartbeatSeconds * 1000,
    maxBufferBytes: config.eventsMaxBufferBytes,
  });
  bus.onAnnounce((teamId) => hub.changed(teamId));
  bus.onEndedAccess((teamId) => hub.accessEnded(teamId));
  const streamLimits = new StreamLimits({
    perCredential: config.eventsMaxStreamsPerCredential,
    perProcess: config.eventsMaxStreams,
  });
  // Attachments' bytes (issue 31): the disk, or an S3-compatible bucket.
  const files = createFileStore(config);
  // Team exports (issue 32): written in the background from a read snapshot, into a store of their own.
  const exportFiles = { attachments: files, exports: createExportFileStore(config) };
  const exportRunner = new ExportRunner(store, config.databaseUrl, exportFiles, {
    warn: (details, message) => app.log.warn(details, message),
  });
  /** Every /v1 route module, in one list: grep here to find an endpoint. */
  const v1Routes = [
    teamRoutes,
    memberRoutes,
    invitationsRoutes,
    listsRoutes,
    statusesRoutes,
    labelsRoutes,
    tasksRoutes,
    activityRoutes,
    commentsRoutes,
    attachmentsRoutes(files),
    searchRoutes,
    keysRoutes,
    agentAccessRoutes,
    eventsRoutes(hub, streamLimits),
    webhooksRoutes,
    viewsRoutes,
    notificationsRoutes,
    mailRoutes,
    reminderRoutes,
    exportsRoutes(exportRunner, exportFiles),
    // An apply's batches are scheduled jobs: this process looks for its first one at once.
    importsRoutes(() => jobRunner.wake()),
  ];

  const app = Fastify({
    logger: { level: config.logLevel, redact: LOG_REDACTION },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: trustedProxies(config.trustProxy),
    clientErrorHandler: answerClientError,
    // While closing, serve what still arrives on open connections (answered with Connection:
    // close) rather than Fastify's own 503, whose body is not {"error"}.
    return503OnClosing: false,
    // A malformed URL (`/v1/tasks/%`) fails before routing; without this Fastify answers it itself, not with {"error"}.
    frameworkErrors: handleError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('hub', hub);
  // First of all hooks: the deadline runs from the headers, whatever else happens to the request.
  app.addHook('onRequest', bodyDeadline(config.requestTimeoutMs));
  app.decorateRequest('store', null as unknown as Store);
  app.addHook('onRequest', async (request) => {
    request.store = store;
  });
  // Event streams never end by themselves: end them first, or closing would wait forever.
  app.addHook('preClose', () => hub.close());

  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    if (app.sendWebApp?.(request, reply)) return;
    reply.code(404).send({ error: `There is no ${request.method} ${request.url.split('?')[0]} endpoint.` });
  });

  // Bodies are JSON only; anything else is a 415.
  app.removeContentTypeParser('text/plain');
  // An empty body with a JSON content type (common for POST …/archive) counts as no body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });

  // Before the rate limit, so that a 429 too carries these headers (and CORS lets a page read it).
  registerSecurityHeaders(app);
  await registerCors(app, config.corsOrigins);

  const rateLimiter = registerRateLimit(app, deps);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'tasklane API',
        version: API_VERSION,
        // Markdown: the code spans keep `<message>` literal, where bare it would be taken for an HTML tag.
        description:
          'Task lists, tasks, workflow statuses and members of one team, for the holder of a personal API key. ' +
          'Every error body is `{"error": "<message>"}`. Where the published interface fixes the body of a 400 ' +
          '(`Invalid input.`, `listId must be a number.`), the precise reason is in the `Error-Detail` response ' +
          'header. A query parameter an endpoint does not take is refused with a 400 that names it.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          // The web app's session; changes made with it also need the x-csrf-token header.
          session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
        },
      },
      security: [{ apiKey: [] }, { session: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });

  app.get(
    '/healthz',
    {
      config: { rateLimit: false },
      schema: {
        summary: 'Liveness: 200 once the server accepts requests (no key needed)',
        tags: ['Operations'],
        security: [],
        response: { 200: Type.Object({ status: Type.String() }) },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await registerWebApp(app);

  // Every /v1 and /auth route (registered from here on) refuses query parameters it does not declare.
  registerUnknownQueryCheck(app);
  signInRoute(rateLimiter.failedAuth)(app, deps);
  invitationLinkRoutes(rateLimiter.failedAuth)(app, deps);
  // In its own scope: it alone takes a form body (a mail client's one-click POST).
  await app.register(async (scope) => unsubscribeRoute(rateLimiter.failedAuth)(scope, deps));
  // OAuth for MCP clients (issue 33): metadata, registration, the authorization page, the token endpoint.
  await app.register(async (scope) => oauthRoutes(rateLimiter.failedAuth)(scope, deps));
  // Housekeeping runs while the app does; closing waits for a run in progress, so the store is
  // closed only after it (http/shutdown.ts closes the store once the app has closed).
  const scheduler = new Scheduler(
    housekeepingJobs(store, rateLimiter.counters, {
      files,
      orphanGraceMs: config.attachments.orphanGraceSeconds * 1000,
      exportFiles: exportFiles.exports,
    }),
    app.log,
  );
  app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', () => scheduler.close());
  // Webhook deliveries: woken by every process's changes that queued some (the bus).
  const webhookWorker = new DeliveryWorker(store, config.webhooks, app.log);
  bus.onDeliveriesQueued(() => webhookWorker.wake());
  app.addHook('onReady', async () => webhookWorker.start());
  // Notification email, while SMTP_URL is set.
  const mailWorker = new MailWorker(store, config.mail, config.publicUrl, app.log);
  app.addHook('onReady', async () => mailWorker.start());
  // Scheduled jobs (due-date reminders, imports' batches), unless SCHEDULED_JOBS=off.
  setClockOffset(config.clockOffsetMs);
  const jobRunner = new JobRunner(
    store,
    { ...REMINDER_HANDLERS, [APPLY_JOB]: applyImportBatch },
    { ...config.jobs, clock, log: app.log },
  );
  if (config.jobs.run) app.addHook('onReady', async () => jobRunner.start());
  app.addHook('onClose', async () => {
    await exportRunner.close();
    await jobRunner.close();
    await mailWorker.close();
    await webhookWorker.close();
    stopBridge();
    await bus.close();
  });
  // Every POST under /v1 honours Idempotency-Key; such a request's `request.store` is its transaction.
  registerIdempotency(app);
  // /mcp (issue 33): a foreign Origin is refused before the key is even read (mcp/origin.ts).
  registerOriginCheck(app, config);
  await app.register(async (authenticated) => {
    rateLimiter.addAuthenticationHook(authenticated, authenticate(store, config.publicUrl));
    // Then a scoped key's scopes against the route's (issue 33), before any body or transaction.
    registerScopeCheck(authenticated);
    // mcpRoutes: the MCP server (docs/mcp.md), authenticated and rate-limited as the API is.
    for (const routes of [...v1Routes, sessionRoutes(rateLimiter.failedAuth), setupRoutes, consentRoutes, mcpRoutes]) {
      // Each module in its own scope, so a module's hooks (sessionRoutes' session check) stay its own.
      await authenticated.register(async (scope) => routes(scope, deps));
    }
  });

  return app;
}

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes "trust the nearest N hops" (Fastify
 * itself now ignores numbers): with one proxy the client is the entry that proxy appended,
 * whatever the client wrote to the left of it.
 */
function trustedProxies(trust: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust === false ? false : [...trust];
}

/** Framework failures (`FST_…` codes) that are the client's doing, in words a person understands. */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty; send a JSON object.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type; send the body as application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body.',
  FST_ERR_BAD_URL: 'The URL is malformed.',
};

function handleError(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply): void {
  let status: number;
  let message: string;
  if (error instanceof AppError) {
    status = error.status;
    message = error.message;
    reply.headers(error.headers);
    // At warn, the default level: an operator can see why (a refused webhook URL may be an SSRF probe).
    if (error.logDetail) request.log.warn({ detail: error.logDetail }, `request refused: ${message}`);
  } else if (error.validation) {
    status = 400;
    message = validationMessage(error.validation as never, error.validationContext);
  } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    status = error.statusCode;
    // Only Fastify's own client errors speak for themselves; anything else thrown with a 4xx
    // status could quote internals, so it gets a plain message.
    const ownMessage = error.code?.startsWith('FST_') && /^[A-Z]/.test(error.message);
    message = FRAMEWORK_MESSAGES[error.code] ?? (ownMessage ? error.message : 'Bad request.');
    if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      message = FRAMEWORK_MESSAGES.FST_ERR_CTP_INVALID_JSON_BODY!;
    }
  } else if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    status = 503;
    message = 'The database is unavailable. Try again shortly.';
    reply.header('retry-after', '1');
  } else {
    request.log.error({ err: error }, 'request failed');
    status = 500;
    message = 'Internal server error.';
  }
  // Fastify closes the connection after a body it refused part way (413): the rest may still be
  // arriving, and closing under it could reset the connection before the client reads the answer.
  if (!request.raw.complete && reply.getHeader('connection') === 'close') lingerBeforeClosing(request.raw);
  const fixed = request.routeOptions?.config?.invalidInputMessage;
  if (status === 400 && fixed) {
    // The spec fixes the body; the reason still reaches the client, in a header.
    reply.header(ERROR_DETAIL_HEADER, asHeaderValue(message));
    message = fixed;
  }
  reply.code(status).type('application/json').send({ error: message });
}
