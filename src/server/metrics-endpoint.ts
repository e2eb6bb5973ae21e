/**
 * GET /metrics for Prometheus, and the middleware that times every request for it. The operation label comes from
 * the pipeline (`res.locals.operationId`, set once a route matched), so unmatched paths cannot add series.
 */
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Config } from '../config.js';
import { UnauthorizedError } from '../errors.js';
import type { PrometheusMetrics } from '../system/prometheus.js';

/** Records each answered request when its response has been sent (or the connection closed). */
export function requestMetrics(prometheus: PrometheusMetrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const operation = typeof res.locals.operationId === 'string' ? res.locals.operationId : req.originalUrl.startsWith('/v2/reports') ? 'graphql' : 'none';
      prometheus.observeRequest(operation, req.method, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether the scrape may read the metrics: always when no protection is configured. */
function admitted(req: Request, protection: Config['prometheus']): boolean {
  if (!protection.bearerToken && !protection.basicAuth) return true;
  const header = req.headers.authorization ?? '';
  const [scheme, value = ''] = header.split(' ', 2);
  if (protection.bearerToken && scheme.toLowerCase() === 'bearer') return sameSecret(value, protection.bearerToken);
  if (protection.basicAuth && scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // Both compared, whatever the first gives, so the time taken does not tell which was wrong.
    const user = sameSecret(decoded.slice(0, Math.max(0, colon)), protection.basicAuth.username);
    const password = sameSecret(decoded.slice(colon + 1), protection.basicAuth.password);
    return colon > 0 && user && password;
  }
  return false;
}

export function metricsEndpoint(prometheus: PrometheusMetrics, protection: Config['prometheus']): RequestHandler {
  return (req, res, next) => {
    res.locals.operationId = 'metrics';
    if (!admitted(req, protection)) {
      const accepted = [protection.bearerToken ? 'bearer token (VIGIL_PROMETHEUS_TOKEN)' : null, protection.basicAuth ? 'basic credentials (VIGIL_PROMETHEUS_BASIC_AUTH)' : null].filter((a) => a !== null);
      next(new UnauthorizedError(`/metrics needs the scrape credentials: ${accepted.join(' or ')}`, { accepted }));
      return;
    }
    prometheus
      .metrics()
      .then((text) => {
        res.setHeader('Cache-Control', 'no-store');
        res.type(prometheus.contentType).send(text);
      })
      .catch(next);
  };
}
