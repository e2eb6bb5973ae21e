/** The Express application: request ids and logs, body parsing, legacy aliases, docs, and the /v2 pipeline. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type Request } from 'express';
import { pinoHttp } from 'pino-http';
import { NotFoundError } from '../errors.js';
import type { Services } from '../service.js';
import { createBodyParsing } from './body-parsing.js';
import { docsRouter } from './docs.js';
import { redirectBrowsersToUi, WEB_UI_PATH, webUiRouter } from './web-ui.js';
import { sendError } from './error-response.js';
import type { BodyChecks, Handlers } from './handler-types.js';
import { metricsEndpoint, requestMetrics } from './metrics-endpoint.js';
import { createPipeline } from './pipeline.js';
import { reportsRouter } from '../reports/graphql/http.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** What a node without the api role serves under /v2 (besides GET /metrics): its probes. */
const PROBE_PATHS = new Set(['/health', '/health/live', '/health/ready']);

/** V1-form routes kept for existing clients; each maps onto its /v2 operation and answers as it does. */
const LEGACY_ROUTES: Record<string, { to: string }> = {
  'POST /v1/oauth/token': { to: '/v2/oauth/token' },
  'GET /v1/accounts': { to: '/v2/accounts' },
  'GET /v1/account': { to: '/v2/account' },
};

function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', id);
  return id;
}

function idOf(req: Request): string {
  return String(req.id);
}

export async function createApp(services: Services, handlers: Handlers, bodyChecks: BodyChecks = {}): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger: services.log,
      genReqId: requestId,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug'),
    }),
  );

  app.use(requestMetrics(services.prometheus));
  app.get('/metrics', metricsEndpoint(services.prometheus, services.config.prometheus));

  if (!services.config.roles.includes('api')) {
    // A worker node (VIGIL_ROLES without api): its probes go through the pipeline as usual; everything else is
    // not served here and gets the 404 below.
    const pipeline = await createPipeline(services, handlers, createBodyParsing(services.config), bodyChecks);
    app.use('/v2', (req, res, next) => (req.method === 'GET' && PROBE_PATHS.has(req.path) ? pipeline.handle(req, res, next) : next()));
    app.use((req, res) =>
      sendError(
        res,
        new NotFoundError(`no operation at ${req.method} ${req.path}: this node does not serve the API (VIGIL_ROLES has no api)`, { path: req.path, vigil_roles: services.config.roles }),
        idOf(req),
      ),
    );
    app.use(finalErrors);
    return app;
  }

  app.use((req, res, next) => {
    const legacy = LEGACY_ROUTES[`${req.method} ${req.path}`];
    if (legacy) req.url = legacy.to + req.url.slice(req.path.length);
    next();
  });

  // REST bodies are parsed by the pipeline once the route is known and the caller authenticated
  // (body-parsing.ts); GraphQL's router reads JSON and form bodies through the same parsers.
  const bodies = createBodyParsing(services.config);

  app.use('/v2/docs', docsRouter());

  // The web interface (outside the spec, like the docs); a browser opening the service root lands there.
  app.use(WEB_UI_PATH, webUiRouter());
  app.use(redirectBrowsersToUi);

  // GraphQL reporting (not part of the REST contract); paths it does not serve fall through to the pipeline.
  app.use('/v2/reports', ...bodies.middleware, reportsRouter(services));

  const pipeline = await createPipeline(services, handlers, bodies, bodyChecks);
  app.use('/v2', (req, res, next) => pipeline.handle(req, res, next));

  // Anything outside /v2 (including version-less paths such as /images) is not an API route.
  app.use((req, res) => {
    const hint = req.path.startsWith('/v1/') || req.path.startsWith('/v2') ? '' : `; the API is under /v2 (for example /v2${req.path})`;
    sendError(res, new NotFoundError(`no operation at ${req.method} ${req.path}${hint}`, { path: req.path }), idOf(req));
  });

  app.use(finalErrors);
  return app;
}

const finalErrors: ErrorRequestHandler = (err, req, res, _next) => sendError(res, err, idOf(req));
