/**
 * Request body parsing (JSON, forms, text) with the limits and error mapping of the REST pipeline. The pipeline
 * parses a body only once the route is known, the caller authenticated and the content type accepted, so an
 * anonymous or misdirected request never makes the server read megabytes of JSON (an inventory report may be
 * 64 MB); the GraphQL router uses the same parsers as middleware.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { AppError, InvalidError } from '../errors.js';
import type { Services } from '../service.js';
import { jsonNestingExceeds } from '../util/json-nesting.js';
import { sendError } from './error-response.js';

/**
 * JSON bodies may nest arrays and objects this deep: far beyond any document the API takes, far below the depth
 * at which stringifying or walking one recursively exhausts the stack (about 2,000 levels).
 */
export const MAX_JSON_BODY_DEPTH = 256;

/** Paths whose JSON bodies get the inventory report limit instead of the general one. */
const INVENTORY_PATHS = new Set(['/v2/kubernetes-inventory', '/v2/ecs-inventory']);

/** body-parser's `verify` hook: refuses over-deep JSON before it is parsed (the failure is mapped below). */
function refuseDeepJson(_req: IncomingMessage, _res: ServerResponse, body: Buffer, charset: string): void {
  const utf8 = /^utf-?8$/i.test(charset) ? body : Buffer.from(new TextDecoder(charset).decode(body));
  const offset = jsonNestingExceeds(utf8, MAX_JSON_BODY_DEPTH);
  if (offset >= 0) throw Object.assign(new Error(`the request body nests JSON deeper than ${MAX_JSON_BODY_DEPTH} levels (at byte ${offset})`), { type: 'entity.too.deep', offset });
}

/**
 * A body parser failure as the documented error. Whatever else a parser refuses (a compressed body that does not
 * decompress, a body cut short, too many form fields) is the client's fault: 400, never 500. null: not a
 * parser's error.
 */
export function bodyParserError(err: unknown, req: Request): AppError | null {
  const { type, status } = err as { type?: string; status?: number };
  const message = (err as Error).message;
  if (type === 'entity.too.large') return new AppError(413, 'payload_too_large', `the request body exceeds the limit of ${(err as { limit: number }).limit} bytes`);
  if (type === 'entity.parse.failed') return new InvalidError(`the request body is not valid JSON: ${message}`);
  if (type === 'entity.too.deep') return new InvalidError(message, { max_depth: MAX_JSON_BODY_DEPTH, offset: (err as { offset: number }).offset });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new AppError(415, 'unsupported_media_type', message);
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    const what = encoding === 'identity' ? 'could not be read' : `could not be decoded as Content-Encoding ${encoding}`;
    return new InvalidError(`the request body ${what}: ${message}`);
  }
  return null;
}

export interface BodyParsing {
  /** Parses the body into req.body when its content type is JSON, a form or text; throws the mapped error. */
  parse(req: Request, res: Response): Promise<void>;
  /** The same parsers as Express middleware, with errors answered in the error shape. */
  middleware: RequestHandler[];
}

export function createBodyParsing(config: Services['config']): BodyParsing {
  const limit = config.bodyLimitBytes;
  const inventoryJson = express.json({ limit: config.inventory.maxReportBytes, type: ['application/json'], verify: refuseDeepJson });
  const parsers = [
    express.json({ limit, type: ['application/json', 'application/*+json'], verify: refuseDeepJson }),
    express.urlencoded({ limit, extended: false, parameterLimit: 100 }),
    express.text({ limit, type: 'text/plain' }),
  ];
  const run = (parser: RequestHandler, req: Request, res: Response) =>
    new Promise<void>((resolve, reject) => {
      void parser(req, res, (err?: unknown) => (err ? reject(bodyParserError(err, req) ?? err) : resolve()));
    });
  const answerErrors: ErrorRequestHandler = (err, req, res, next) => {
    const mapped = bodyParserError(err, req);
    if (mapped) sendError(res, mapped, String(req.id));
    else next(err);
  };
  return {
    async parse(req, res) {
      // Each parser leaves a body of another type, or one already parsed, alone.
      if (INVENTORY_PATHS.has(req.baseUrl + req.path)) await run(inventoryJson, req, res);
      for (const parser of parsers) await run(parser, req, res);
    },
    middleware: [...parsers, answerErrors as unknown as RequestHandler],
  };
}
