/** Handlers of the System tag. */
import { schemaVersion } from '../db/index.js';
import { UnavailableError } from '../errors.js';
import { readProjectJson } from '../util/project.js';
import type { HandlerGroup } from '../server/handler-types.js';
import type { RequestContext } from '../server/context.js';

type SystemOps = 'ping' | 'health_check' | 'version_check' | 'get_openapi_spec' | 'get_status' | 'get_service_detail';

const HEALTH_TIMEOUT_MS = 2000;
const swaggerDocument = readProjectJson<Record<string, unknown>>('generated/swagger.json');

async function databaseAnswers(ctx: RequestContext): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS)));
  try {
    return await Promise.race([ctx.db.raw('select 1').then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function statusOf(ctx: RequestContext) {
  const up = await databaseAnswers(ctx);
  return {
    available: up,
    busy: false,
    up,
    message: up ? 'all services up' : 'the database does not answer',
    version: ctx.services.version,
    db_version: up ? await schemaVersion(ctx.db) : 'unknown',
    detail: { started_at: ctx.services.startedAt },
  };
}

export const systemHandlers: HandlerGroup<SystemOps> = {
  async ping() {
    // Upstream's ping answers its API version prefix as a JSON string.
    return { status: 200, body: 'v2' as const };
  },
  async health_check(ctx) {
    if (!(await databaseAnswers(ctx))) throw new UnavailableError('the database does not answer');
    return { status: 200, body: { status: 'ok' as const } };
  },
  async version_check(ctx) {
    return {
      status: 200,
      body: { service: { version: ctx.services.version }, api: { version: '2' }, db: { schema_version: await schemaVersion(ctx.db) } },
    };
  },
  async get_openapi_spec() {
    return { status: 200, body: swaggerDocument };
  },
  async get_status(ctx) {
    return { status: 200, body: await statusOf(ctx) };
  },
  async get_service_detail(ctx) {
    const detail = await statusOf(ctx);
    const { host, port } = ctx.services.config;
    return {
      status: 200,
      body: {
        service_states: [
          {
            host_id: ctx.services.hostId,
            service_name: 'api',
            base_url: `${ctx.services.config.tls ? 'https' : 'http'}://${host === '0.0.0.0' ? ctx.services.hostId : host}:${port}`,
            status_message: detail.message,
            service_detail: detail,
            status: detail.up,
            version: ctx.services.version,
          },
        ],
      },
    };
  },
};
