/**
 * Notifications, for each kind (webhook, Slack, Teams, SMTP, GitHub, Jira) against loopback receivers: a configuration with a
 * selector matching every event gets notifications of a feed sync (setup), whose deliveries, receipts and replay
 * are then read; a second configuration goes through its life cycle (create, read, update, selectors, status,
 * tests, delete). Plus the endpoint listing and switch and the selector listing.
 *
 * The per-kind operations share their shapes, so the SDK functions are looked up by operationId here
 * (`sdkCall`); the request validator of each still checks what is sent.
 */
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from '../../support/receivers.js';
import type { TestServer } from '../../support/server.js';
import { defineArea, ok, sdkCall, type Call } from '../harness.js';

const KINDS = ['webhook', 'slack', 'teams', 'smtp', 'github', 'jira'] as const;
type Kind = (typeof KINDS)[number];

const SELECTOR = { scope: 'account', event: { level: '*', resource_type: '*', type: '*' } };

interface Delivered {
  configuration: string;
  notificationId: string;
}

interface State {
  server: TestServer;
  http: HttpReceiver;
  smtp: SmtpReceiver;
  /** The setup's configuration of each kind, with one delivered notification. */
  delivered: Record<Kind, Delivered>;
  /** The life-cycle configuration of each kind and its selector. */
  configuration: Partial<Record<Kind, string>>;
  selector: Partial<Record<Kind, string>>;
}

function configurationBody(kind: Kind, s: Pick<State, 'http' | 'smtp'>, description: string): Record<string, unknown> {
  if (kind === 'smtp') return { host: '127.0.0.1', port: s.smtp.port, use_tls: false, from: 'vigil@example.com', to: 'ops@example.com', description };
  // The loopback receiver stands in for the GitHub and Jira APIs: it accepts the issue whatever the path.
  if (kind === 'github') return { url: `${s.http.url}/github`, username: 'vigil-bot', access_token: 'contract-token', owner: 'acme', repository: 'alerts', description };
  if (kind === 'jira') return { url: `${s.http.url}/jira`, username: 'vigil@example.com', password: 'contract-token', project_key: 'VIG', issue_type: 'Bug', description };
  return { url: `${s.http.url}/${kind}/hook`, description };
}

/** The calls of one kind's operations, in life-cycle order. */
function kindCalls(kind: Kind): Record<string, Call<State>> {
  const op = (suffix: string) => `${suffix.replace('%', kind)}`;
  return {
    [op('add_%_configuration')]: async (s) => {
      s.configuration[kind] = (await ok(sdkCall(op('add_%_configuration'), { body: configurationBody(kind, s, 'contract') }))).uuid;
    },
    [op('list_%_configurations')]: () => ok(sdkCall(op('list_%_configurations'))),
    [op('get_%_configuration')]: (s) => ok(sdkCall(op('get_%_configuration'), { path: { uuid: s.configuration[kind] } })),
    [op('update_%_configuration')]: (s) =>
      ok(sdkCall(op('update_%_configuration'), { path: { uuid: s.configuration[kind] }, body: configurationBody(kind, s, 'changed') })),
    [op('add_%_selector')]: async (s) => {
      s.selector[kind] = (await ok(sdkCall(op('add_%_selector'), { path: { uuid: s.configuration[kind] }, body: SELECTOR }))).uuid;
    },
    [op('list_%_selectors')]: (s) => ok(sdkCall(op('list_%_selectors'), { path: { uuid: s.configuration[kind] } })),
    [op('get_%_selector')]: (s) => ok(sdkCall(op('get_%_selector'), { path: { configuration_uuid: s.configuration[kind], selector_uuid: s.selector[kind] } })),
    [op('update_%_selector')]: (s) =>
      ok(
        sdkCall(op('update_%_selector'), {
          path: { configuration_uuid: s.configuration[kind], selector_uuid: s.selector[kind] },
          body: { scope: 'account', event: { level: 'error', resource_type: '*', type: 'user.*' } },
        }),
      ),
    [op('test_stored_%_configuration')]: (s) =>
      ok(sdkCall(op('test_stored_%_configuration'), { path: { uuid: s.configuration[kind] }, query: { notification_type: 'tag_update' } })),
    [op('test_%_configuration')]: (s) => ok(sdkCall(op('test_%_configuration'), { body: configurationBody(kind, s, 'unsaved'), query: { notification_type: 'vuln_update' } })),
    [op('get_%_configuration_status')]: (s) => ok(sdkCall(op('get_%_configuration_status'), { path: { uuid: s.delivered[kind].configuration } })),
    [op('list_%_deliveries')]: (s) => ok(sdkCall(op('list_%_deliveries'), { path: { uuid: s.delivered[kind].configuration }, query: { state: 'delivered', limit: 10 } })),
    [op('get_%_delivery')]: (s) =>
      ok(sdkCall(op('get_%_delivery'), { path: { configuration_uuid: s.delivered[kind].configuration, notification_id: s.delivered[kind].notificationId } })),
    [op('list_%_delivery_receipts')]: (s) =>
      ok(sdkCall(op('list_%_delivery_receipts'), { path: { configuration_uuid: s.delivered[kind].configuration, notification_id: s.delivered[kind].notificationId } })),
    [op('replay_%_delivery')]: (s) =>
      ok(sdkCall(op('replay_%_delivery'), { path: { configuration_uuid: s.delivered[kind].configuration, notification_id: s.delivered[kind].notificationId } })),
    [op('delete_%_selector')]: (s) => ok(sdkCall(op('delete_%_selector'), { path: { configuration_uuid: s.configuration[kind], selector_uuid: s.selector[kind] } })),
    [op('delete_%_configuration')]: (s) => ok(sdkCall(op('delete_%_configuration'), { path: { uuid: s.configuration[kind] } })),
  };
}

export const notificationsArea = defineArea<State>({
  name: 'notifications',
  env: () => ({ VIGIL_FEED_SYNC_ON_START: 'false', VIGIL_NOTIFY_POLL_MS: '20' }),
  async setup(_url, server) {
    const [http, smtp] = await Promise.all([startHttpReceiver(), startSmtpReceiver()]);
    const byConfiguration = new Map<string, Kind>();
    const delivered: Partial<Record<Kind, Delivered>> = {};
    const dispatcher = server.running.services.notifications.dispatcher;
    const allDelivered = new Promise<void>((resolve, reject) => {
      dispatcher.on('settled', (n) => {
        const kind = byConfiguration.get(n.configurationUuid);
        if (!kind || delivered[kind]) return;
        if (n.state === 'failed') return reject(new Error(`a ${kind} notification failed: ${JSON.stringify(n.outcome)}`));
        if (n.state !== 'delivered') return; // a retry is due: its next try settles again
        delivered[kind] = { configuration: n.configurationUuid, notificationId: n.id };
        if (KINDS.every((k) => delivered[k])) resolve();
      });
    });
    for (const kind of KINDS) {
      const created = await ok(sdkCall(`add_${kind}_configuration`, { body: configurationBody(kind, { http, smtp }, 'delivered') }));
      byConfiguration.set(created.uuid, kind);
      await ok(sdkCall(`add_${kind}_selector`, { path: { uuid: created.uuid }, body: SELECTOR }));
    }
    // A feed sync (no sources: nothing to download) records events in the admin account, which every selector matches.
    await ok(sdk.postSystemFeeds({ query: { wait: true } }));
    await allDelivered;
    return { server, http, smtp, delivered: delivered as Record<Kind, Delivered>, configuration: {}, selector: {} };
  },
  async teardown(s) {
    await Promise.all([s.http.close(), s.smtp.close()]);
  },
  calls: {
    list_endpoints: () => ok(sdk.listEndpoints()),
    update_endpoint_status: async () => {
      await ok(sdk.updateEndpointStatus({ path: { name: 'teams' }, body: { enabled: false } }));
      await ok(sdk.updateEndpointStatus({ path: { name: 'teams' }, body: { enabled: true } }));
    },
    list_selectors: () => ok(sdk.listSelectors()),
    // Setup left one webhook configuration in the admin account, whose selector takes every event.
    test_webhook: () => ok(sdk.testWebhook({ path: { webhook_type: 'general' }, query: { notification_type: 'vuln_update' } })),
    ...Object.assign({}, ...KINDS.map(kindCalls)),
  },
});
