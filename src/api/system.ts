/** Handlers of the System tag. */
import { schemaVersion } from '../db/index.js';
import { errorCodeList, UnavailableError } from '../errors.js';
import { testWebhooks } from '../notifications/webhook-test.js';
import { listDeployments } from '../system/deployments.js';
import { MAX_JSON_BODY_DEPTH } from '../server/body-parsing.js';
import { resourceLimits } from '../system/limits.js';
import { setLoggingLevel } from '../system/logging.js';
import { deleteService, getServices, listServices } from '../system/services.js';
import { systemStatistics } from '../system/statistics.js';
import { readProjectJson } from '../util/project.js';
import type { HandlerGroup } from '../server/handler-types.js';
import type { RequestContext } from '../server/context.js';

type SystemOps =
  | 'ping'
  | 'health_check'
  | 'health_live'
  | 'health_ready'
  | 'version_check'
  | 'get_openapi_spec'
  | 'get_status'
  | 'get_service_detail'
  | 'describe_error_codes'
  | 'list_services'
  | 'get_services_by_name'
  | 'get_services_by_name_and_host'
  | 'delete_service'
  | 'get_deployment_history'
  | 'get_system_statistics'
  | 'test_webhook'
  | 'set_new_log_level'
  | 'get_resource_limits';

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
  async health_live() {
    return { status: 200, body: { status: 'ok' as const } };
  },
  async health_ready(ctx) {
    const checks = { started: ctx.services.lifecycle.started, stopping: ctx.services.lifecycle.stopping, database: await databaseAnswers(ctx) };
    if (!checks.started || checks.stopping || !checks.database) {
      const reason = checks.stopping ? 'the node is shutting down' : !checks.started ? 'the node is still starting' : 'the database does not answer';
      throw new UnavailableError(`not ready: ${reason}`, { checks });
    }
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
    return { status: 200, body: { service_states: await listServices(ctx.db) } };
  },
  async list_services(ctx) {
    return { status: 200, body: await listServices(ctx.db) };
  },
  async get_services_by_name(ctx, { params }) {
    return { status: 200, body: await getServices(ctx.db, { serviceName: params.service_name }) };
  },
  async get_services_by_name_and_host(ctx, { params }) {
    return { status: 200, body: await getServices(ctx.db, { serviceName: params.service_name, hostId: params.host_id }) };
  },
  async delete_service(ctx, { params }) {
    await deleteService(ctx.db, params.service_name, params.host_id);
    return { status: 200 };
  },
  async describe_error_codes() {
    return { status: 200, body: errorCodeList() };
  },
  async get_deployment_history(ctx) {
    return { status: 200, body: { items: await listDeployments(ctx.db) } };
  },
  async get_system_statistics(ctx) {
    return { status: 200, body: { items: await systemStatistics(ctx.db, await ctx.services.settings.get('inventory.ttl_seconds')) } };
  },
  async test_webhook(ctx, { params, query }) {
    const account = { name: ctx.account.name, email: ctx.account.email ?? null };
    await testWebhooks(ctx.db, ctx.services.secretBox, account, params.webhook_type, query.notification_type ?? 'tag_update', ctx.services.notifications.delivery);
    return { status: 200 };
  },
  async set_new_log_level(ctx, { body }) {
    return { status: 200, body: await setLoggingLevel(ctx.services.log, ctx.services.registry, body, ctx.caller.username) };
  },
  async get_resource_limits(ctx) {
    return { status: 200, body: { items: resourceLimits(ctx.services.config, { jsonBodyDepth: MAX_JSON_BODY_DEPTH }) } };
  },
};
