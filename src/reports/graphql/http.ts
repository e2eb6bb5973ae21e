/**
 * The GraphQL endpoints: /v2/reports/graphql (the caller's account, or the one x-service-account or its alias
 * x-anchore-account names) and /v2/reports/global/graphql (administrators, every account). Same authentication and
 * RBAC as REST (action viewReports); graphql-http does the GraphQL-over-HTTP part; a browser asking for HTML gets
 * GraphiQL.
 */
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { GraphQLError } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/express';
import { authorize } from '../../auth/rbac.js';
import { AppError, ForbiddenError } from '../../errors.js';
import { createAuthenticate } from '../../server/auth-strategies.js';
import { headerAccount, resolveTargetAccount } from '../../server/account-scope.js';
import { sendError } from '../../server/error-response.js';
import type { Services } from '../../service.js';
import { VIEW_REPORTS } from '../actions.js';
import { ReportInputError } from '../errors.js';
import { graphiqlAssets, sendGraphiqlPage, wantsGraphiql } from '../graphiql.js';
import type { ReportContext } from './context.js';
import { createJitExecute } from './jit-execute.js';
import { parseReportDocument, validateReportDocument } from './limits.js';
import { boundedResult } from './response-size.js';
import { createReportSchema } from './schema.js';

type Scope = 'account' | 'global';

const CONTEXT = Symbol('reportContext');
type WithContext = Request & { [CONTEXT]?: ReportContext };

/** GraphQL errors out of domain errors: the message, and the error type and argument as extensions. */
function formatError(services: Services) {
  return (err: Readonly<GraphQLError | Error>): GraphQLError | Error => {
    if (!(err instanceof GraphQLError)) return err;
    const original = err.originalError;
    if (!original || original instanceof GraphQLError) return err;
    const like = (message: string, extensions: Record<string, unknown>) =>
      new GraphQLError(message, { nodes: err.nodes, source: err.source, positions: err.positions, path: err.path, extensions });
    if (original instanceof ReportInputError) return like(err.message, { code: 'BAD_USER_INPUT', argument: original.argument });
    if (original instanceof AppError) return like(err.message, { code: original.errorType, status: original.status, ...original.detail });
    services.log.error({ err: original, path: err.path }, 'report query failed');
    return like('internal error while resolving this field', { code: 'INTERNAL_SERVER_ERROR' });
  };
}

export function reportsRouter(services: Services): Router {
  const router = express.Router();
  const schema = createReportSchema();
  const authenticate = createAuthenticate(services.authenticator);

  const handler = createHandler<ReportContext>({
    schema,
    context: (req) => (req.raw as WithContext)[CONTEXT]!,
    execute: createJitExecute() as never,
    // The limits come first (parse and validate), so an abusive document is refused before graphql-js's own rules.
    parse: (source) => parseReportDocument(source),
    validate: (schemaToCheck, document) => validateReportDocument(schemaToCheck, document),
    onOperation: (_req, _args, result) => boundedResult(result, services.config.reports.maxResponseBytes),
    formatError: formatError(services),
    // Upstream clients POST with the query in the query string and no body; accept that as well.
    parseRequestParams: (req) => {
      const raw = req.raw as Request;
      if (raw.method !== 'POST' || (raw.body && Object.keys(raw.body as object).length) || typeof raw.query.query !== 'string') return;
      let variables: Record<string, unknown> | undefined;
      if (typeof raw.query.variables === 'string') {
        try {
          variables = JSON.parse(raw.query.variables) as Record<string, unknown>;
        } catch {
          return [JSON.stringify({ errors: [{ message: 'the variables query parameter is not valid JSON' }] }), { status: 400, statusText: 'Bad Request', headers: { 'content-type': 'application/json; charset=utf-8' } }];
        }
      }
      return { query: raw.query.query, variables, operationName: typeof raw.query.operationName === 'string' ? raw.query.operationName : undefined };
    },
  });

  async function prepare(scope: Scope, req: WithContext): Promise<void> {
    const principal = await authenticate(req);
    const account =
      scope === 'global'
        ? principal.account
        : await resolveTargetAccount(services.db, principal, VIEW_REPORTS, { header: headerAccount(req.headers) });
    if (scope === 'global' && !principal.isAdmin) throw new ForbiddenError('the global reporting endpoint is for administrators; use /v2/reports/graphql');
    await authorize(services.db, services.permissions, principal, VIEW_REPORTS, account.name);
    req[CONTEXT] = {
      services,
      log: (req as unknown as { log?: ReportContext['log'] }).log ?? services.log,
      principal,
      accountName: account.name,
      scope: scope === 'global' ? { kind: 'global' } : { kind: 'account', accountName: account.name },
      authorize: (action) => authorize(services.db, services.permissions, principal, action, account.name),
      memo: new Map(),
    };
  }

  function endpoint(scope: Scope, path: string) {
    return async (req: Request, res: Response, next: NextFunction) => {
      if (services.config.reports.graphiql && wantsGraphiql(req)) {
        sendGraphiqlPage(res, { endpoint: `/v2/reports${path}`, assets: '/v2/reports/graphiql' });
        return;
      }
      try {
        await prepare(scope, req as WithContext);
      } catch (err) {
        sendError(res, err, String(res.getHeader('x-request-id') ?? ''));
        return;
      }
      // Report answers are account data, like every authenticated REST answer: not for any cache to keep.
      res.setHeader('Cache-Control', 'no-store');
      handler(req, res, next);
    };
  }

  if (services.config.reports.graphiql) router.use('/graphiql', graphiqlAssets());
  router.all('/graphql', endpoint('account', '/graphql'));
  router.all('/global/graphql', endpoint('global', '/global/graphql'));
  return router;
}
