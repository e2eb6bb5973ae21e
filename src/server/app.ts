/** The Express application: request ids and logs, body parsing, legacy aliases, docs, and the /v2 pipeline. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type Request } from 'express';
import { pinoHttp } from 'pino-http';
import { AppError, InvalidError, NotFoundError } from '../errors.js';
import type { Services } from '../service.js';
import { docsRouter } from './docs.js';
import { sendError } from './error-response.js';
import type { Handlers } from './handler-types.js';
import { createPipeline } from './pipeline.js';
import { jsonNestingExceeds } from '../util/json-nesting.js';
import { reportsRouter } from '../reports/graphql/http.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** V1-form routes kept for existing clients; each maps onto its /v2 operation. */
const LEGACY_ROUTES: Record<string, { to: string; unwrapItems?: boolean }> = {
  'POST /v1/oauth/token': { to: '/v2/oauth/token' },
  'GET /v1/accounts': { to: '/v2/accounts', unwrapItems: true },
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

/**
 * JSON bodies may nest arrays and objects this deep: far beyond any document the API takes, far below the depth
 * at which stringifying or walking one recursively exhausts the stack (about 2,000 levels).
 */
export const MAX_JSON_BODY_DEPTH = 256;

/** body-parser's `verify` hook: refuses over-deep JSON before it is parsed (the failure is mapped below). */
function refuseDeepJson(_req: IncomingMessage, _res: ServerResponse, body: Buffer, charset: string): void {
  const utf8 = /^utf-?8$/i.test(charset) ? body : Buffer.from(new TextDecoder(charset).decode(body));
  const offset = jsonNestingExceeds(utf8, MAX_JSON_BODY_DEPTH);
  if (offset >= 0) throw Object.assign(new Error(`the request body nests JSON deeper than ${MAX_JSON_BODY_DEPTH} levels (at byte ${offset})`), { type: 'entity.too.deep', offset });
}

/**
 * Body parser failures, mapped to the documented error shape. Whatever else a parser refuses (a compressed body
 * that does not decompress, a body cut short) is the client's fault: 400, never 500.
 */
const bodyErrors: ErrorRequestHandler = (err, req, res, next) => {
  const { type, status } = err as { type?: string; status?: number };
  const message = (err as Error).message;
  if (type === 'entity.too.large')
    return sendError(res, new AppError(413, 'payload_too_large', `the request body exceeds the limit of ${(err as { limit: number }).limit} bytes`), idOf(req));
  if (type === 'entity.parse.failed') return sendError(res, new InvalidError(`the request body is not valid JSON: ${message}`), idOf(req));
  if (type === 'entity.too.deep') return sendError(res, new InvalidError(message, { max_depth: MAX_JSON_BODY_DEPTH, offset: (err as { offset: number }).offset }), idOf(req));
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return sendError(res, new AppError(415, 'unsupported_media_type', message), idOf(req));
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    const what = encoding === 'identity' ? 'could not be read' : `could not be decoded as Content-Encoding ${encoding}`;
    return sendError(res, new InvalidError(`the request body ${what}: ${message}`), idOf(req));
  }
  next(err);
};

export async function createApp(services: Services, handlers: Handlers): Promise<Express> {
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

  app.use((req, res, next) => {
    const legacy = LEGACY_ROUTES[`${req.method} ${req.path}`];
    if (legacy) {
      req.url = legacy.to + req.url.slice(req.path.length);
      if (legacy.unwrapItems) res.locals.transformBody = (body: { items?: unknown }) => body.items ?? body;
    }
    next();
  });

  const limit = services.config.bodyLimitBytes;
  // Runtime inventory reports of large clusters are megabytes of JSON; they get their own limit. The general
  // parser below leaves a body parsed here alone.
  app.use(['/v2/kubernetes-inventory', '/v2/ecs-inventory'], express.json({ limit: services.config.inventory.maxReportBytes, type: ['application/json'], verify: refuseDeepJson }));
  app.use(express.json({ limit, type: ['application/json', 'application/*+json'], verify: refuseDeepJson }));
  app.use(express.urlencoded({ limit, extended: false, parameterLimit: 100 }));
  app.use(express.text({ limit, type: 'text/plain' }));
  app.use(bodyErrors);

  app.use('/v2/docs', docsRouter());

  // GraphQL reporting (not part of the REST contract); paths it does not serve fall through to the pipeline.
  app.use('/v2/reports', reportsRouter(services));

  const pipeline = await createPipeline(services, handlers);
  app.use('/v2', (req, res, next) => pipeline.handle(req, res, next));

  // Anything outside /v2 (including version-less paths such as /images) is not an API route.
  app.use((req, res) => {
    const hint = req.path.startsWith('/v1/') || req.path.startsWith('/v2') ? '' : `; the API is under /v2 (for example /v2${req.path})`;
    sendError(res, new NotFoundError(`no operation at ${req.method} ${req.path}${hint}`, { path: req.path }), idOf(req));
  });

  const finalErrors: ErrorRequestHandler = (err, req, res, _next) => sendError(res, err, idOf(req));
  app.use(finalErrors);
  return app;
}
