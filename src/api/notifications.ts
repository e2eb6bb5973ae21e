/**
 * Handlers of the Notifications tag. Every endpoint kind has the same routes (configurations, selectors,
 * status, tests, deliveries), so one set of handlers is built per kind.
 */
import type { OperationId } from '../../generated/operations.js';
import {
  configurationShape,
  createConfiguration,
  deleteConfiguration,
  getConfiguration,
  listConfigurations,
  unsavedTarget,
  updateConfiguration,
  type ConfigurationInput,
} from '../notifications/configurations.js';
import { listEndpoints, setEndpointEnabled } from '../notifications/endpoints.js';
import { getDelivery, listDeliveries, listReceipts, replayDelivery, type NotificationRecord, type ReceiptRecord } from '../notifications/outbox.js';
import { addSelector, deleteSelector, getSelector, listSelectors, selectorShape, updateSelector, type SelectorInput } from '../notifications/selectors.js';
import { sendTest, testStoredConfiguration, type SampleType } from '../notifications/test-send.js';
import { ENDPOINT_KINDS, type EndpointKind, type NotificationMessage } from '../notifications/types.js';
import { toBool } from '../db/index.js';
import type { RequestContext } from '../server/context.js';
import type { HandlerGroup } from '../server/handler-types.js';

type KindOps<K extends EndpointKind> =
  | `list_${K}_configurations`
  | `add_${K}_configuration`
  | `get_${K}_configuration`
  | `update_${K}_configuration`
  | `delete_${K}_configuration`
  | `list_${K}_selectors`
  | `add_${K}_selector`
  | `get_${K}_selector`
  | `update_${K}_selector`
  | `delete_${K}_selector`
  | `get_${K}_configuration_status`
  | `test_stored_${K}_configuration`
  | `test_${K}_configuration`
  | `list_${K}_deliveries`
  | `get_${K}_delivery`
  | `list_${K}_delivery_receipts`
  | `replay_${K}_delivery`;

type NotificationOps = Extract<OperationId, KindOps<EndpointKind> | 'list_endpoints' | 'update_endpoint_status' | 'list_selectors'>;

// The per-kind handlers share one implementation; their inputs are the same shapes under different names.
type Input = { params: Record<string, string>; query: Record<string, unknown>; body: unknown };
type AnyHandler = (ctx: RequestContext, input: Input) => Promise<{ status: 200; body?: unknown }>;

function deliveryShape(r: NotificationRecord, maxTries: number) {
  const message = JSON.parse(r.message) as NotificationMessage;
  return {
    notification_id: r.id,
    configuration_uuid: r.configuration_uuid,
    endpoint: r.endpoint,
    account_name: r.account_name,
    notification_type: r.notification_type,
    event_id: r.event_id,
    event_type: r.event_type,
    state: r.state,
    tries: r.tries,
    max_tries: r.max_tries || maxTries,
    next_attempt_at: r.next_attempt_at,
    last_error: r.last_error,
    replays: r.replays,
    created_at: r.created_at,
    last_updated: r.last_updated,
    delivered_at: r.delivered_at,
    payload: message.payload,
  };
}

function receiptShape(r: ReceiptRecord) {
  return {
    receipt_id: r.id,
    notification_id: r.notification_id,
    attempt: r.attempt,
    attempted_at: r.attempted_at,
    latency_ms: r.latency_ms,
    success: toBool(r.success),
    http_status: r.http_status,
    smtp_response: r.smtp_response,
    response: r.response,
    error: r.error,
  };
}

const accountOf = (ctx: RequestContext) => ({ name: ctx.account.name, email: ctx.account.email ?? null });
const sampleType = (query: Record<string, unknown>) => (query.notification_type as SampleType | undefined) ?? 'tag_update';

function handlersFor(kind: EndpointKind): Record<string, AnyHandler> {
  const maxTries = (ctx: RequestContext) => ctx.services.config.notifications.maxTries;
  return {
    async [`list_${kind}_configurations`](ctx) {
      return { status: 200, body: (await listConfigurations(ctx.db, ctx.account.name, kind)).map(configurationShape) };
    },
    async [`add_${kind}_configuration`](ctx, { body }) {
      const saved = await createConfiguration(ctx.db, ctx.services.secretBox, ctx.account.name, kind, body as ConfigurationInput);
      const shape = configurationShape(saved.record);
      // Shown this once, like an API key: the receiver needs it to check signatures.
      return { status: 200, body: saved.generatedSigningSecret ? { ...shape, signing_secret: saved.generatedSigningSecret } : shape };
    },
    async [`get_${kind}_configuration`](ctx, { params }) {
      return { status: 200, body: configurationShape(await getConfiguration(ctx.db, ctx.account.name, kind, params.uuid!)) };
    },
    async [`update_${kind}_configuration`](ctx, { params, body }) {
      const updated = await updateConfiguration(ctx.db, ctx.services.secretBox, ctx.account.name, kind, params.uuid!, body as ConfigurationInput);
      return { status: 200, body: configurationShape(updated) };
    },
    async [`delete_${kind}_configuration`](ctx, { params }) {
      await deleteConfiguration(ctx.db, ctx.account.name, kind, params.uuid!);
      return { status: 200 };
    },
    async [`list_${kind}_selectors`](ctx, { params }) {
      return { status: 200, body: (await listSelectors(ctx.db, ctx.account.name, kind, params.uuid!)).map(selectorShape) };
    },
    async [`add_${kind}_selector`](ctx, { params, body }) {
      return { status: 200, body: selectorShape(await addSelector(ctx.db, ctx.account.name, kind, params.uuid!, body as SelectorInput)) };
    },
    async [`get_${kind}_selector`](ctx, { params }) {
      return { status: 200, body: selectorShape(await getSelector(ctx.db, ctx.account.name, kind, params.configuration_uuid!, params.selector_uuid!)) };
    },
    async [`update_${kind}_selector`](ctx, { params, body }) {
      const updated = await updateSelector(ctx.db, ctx.account.name, kind, params.configuration_uuid!, params.selector_uuid!, body as SelectorInput);
      return { status: 200, body: selectorShape(updated) };
    },
    async [`delete_${kind}_selector`](ctx, { params }) {
      await deleteSelector(ctx.db, ctx.account.name, kind, params.configuration_uuid!, params.selector_uuid!);
      return { status: 200 };
    },
    async [`get_${kind}_configuration_status`](ctx, { params }) {
      const c = await getConfiguration(ctx.db, ctx.account.name, kind, params.uuid!);
      return { status: 200, body: { status: c.status, last_attempt_at: c.last_attempt_at, last_error: c.last_error } };
    },
    async [`test_stored_${kind}_configuration`](ctx, { params, query }) {
      const c = await getConfiguration(ctx.db, ctx.account.name, kind, params.uuid!);
      return { status: 200, body: await testStoredConfiguration(ctx.db, ctx.services.secretBox, c, accountOf(ctx), sampleType(query), ctx.services.notifications.delivery) };
    },
    async [`test_${kind}_configuration`](ctx, { query, body }) {
      const { result } = await sendTest(unsavedTarget(kind, body as ConfigurationInput), accountOf(ctx), sampleType(query), ctx.services.notifications.delivery);
      return { status: 200, body: result };
    },
    async [`list_${kind}_deliveries`](ctx, { params, query }) {
      const page = query.page as number;
      const limit = query.limit as number;
      const state = query.state as NotificationRecord['state'] | undefined;
      const { items, nextPage } = await listDeliveries(ctx.db, ctx.account.name, kind, params.uuid!, { state, page, limit });
      return { status: 200, body: { items: items.map((r) => deliveryShape(r, maxTries(ctx))), page, next_page: nextPage, returned_count: items.length } };
    },
    async [`get_${kind}_delivery`](ctx, { params }) {
      return { status: 200, body: deliveryShape(await getDelivery(ctx.db, ctx.account.name, kind, params.configuration_uuid!, params.notification_id!), maxTries(ctx)) };
    },
    async [`list_${kind}_delivery_receipts`](ctx, { params }) {
      const delivery = await getDelivery(ctx.db, ctx.account.name, kind, params.configuration_uuid!, params.notification_id!);
      return { status: 200, body: { items: (await listReceipts(ctx.db, delivery.id)).map(receiptShape) } };
    },
    async [`replay_${kind}_delivery`](ctx, { params }) {
      const replayed = await replayDelivery(ctx.db, ctx.account.name, kind, params.configuration_uuid!, params.notification_id!);
      ctx.services.notifications.dispatcher.wake();
      return { status: 200, body: deliveryShape(replayed, maxTries(ctx)) };
    },
  };
}

const shared: HandlerGroup<'list_endpoints' | 'update_endpoint_status' | 'list_selectors'> = {
  async list_endpoints(ctx) {
    return { status: 200, body: await listEndpoints(ctx.db) };
  },
  async update_endpoint_status(ctx, { params, body }) {
    const updated = await setEndpointEnabled(ctx.db, params.name, body.enabled);
    if (updated.enabled) ctx.services.notifications.dispatcher.wake();
    return { status: 200, body: { enabled: updated.enabled } };
  },
  async list_selectors(ctx) {
    return { status: 200, body: (await listSelectors(ctx.db, ctx.account.name)).map(selectorShape) };
  },
};

export const notificationHandlers = {
  ...shared,
  ...Object.assign({}, ...ENDPOINT_KINDS.map(handlersFor)),
} as HandlerGroup<NotificationOps>;

// Every per-kind name must be an operation of the spec: a renamed route is a compile error here.
const kindOpsInSpec: KindOps<EndpointKind> extends OperationId ? true : never = true;
void kindOpsInSpec;
