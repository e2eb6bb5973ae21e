/**
 * System operations: liveness, versions, the spec itself, status, runtime settings, artifact lifecycle policies,
 * the policy gate catalog, vulnerability feeds (an uploaded OSV feed: sync, show, enable/disable, delete) and events.
 */
import { createHash } from 'node:crypto';
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { registerServices } from '../../../src/system/services.js';
import type { TestServer } from '../../support/server.js';
import { binaryBody, defineArea, expectAnswer, ok } from '../harness.js';

const FEED = 'contract-feed';

/** One OSV advisory for Alpine's musl, so the feed has a group (alpine:3.19). */
export const OSV_RECORD = JSON.stringify({
  schema_version: '1.6.0',
  id: 'ALPINE-CVE-2099-7001',
  modified: '2026-01-01T00:00:00Z',
  published: '2026-01-01T00:00:00Z',
  aliases: ['CVE-2099-7001'],
  summary: 'musl: contract test advisory',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
  affected: [{ package: { ecosystem: 'Alpine:v3.19', name: 'musl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.2.5-r0' }] }] }],
});

/** Uploads OSV_RECORD as feed `name` (application/octet-stream) and answers the feed's groups after a sync. */
export async function uploadFeed(name: string): Promise<string[]> {
  const checksum = createHash('sha256').update(OSV_RECORD).digest('hex');
  await ok(
    sdk.uploadSystemFeed({
      path: { feed: name },
      query: { version: '1', built: '2026-01-01T00:00:00Z', checksum },
      // The SDK would send the binary body as multipart (the first type the operation consumes), putting the Blob
      // into an empty form; the raw octet-stream body is the other form the operation takes.
      ...binaryBody(OSV_RECORD, 'application/octet-stream'),
    }),
  );
  const sync = await ok(sdk.postSystemFeeds({ query: { wait: true } }));
  if (sync.status !== 'done') throw new Error(`feed sync did not finish: ${JSON.stringify(sync)}`);
  // Feeds are listed as upstream's datasets (vulnerability_db, ...), each source one group with its namespaces.
  const feeds = await ok(sdk.getSystemFeeds());
  const source = feeds.flatMap((f) => f.groups ?? []).find((g) => g.name === name);
  if (!source) throw new Error(`source ${name} is not a group of any feed: ${JSON.stringify(feeds)}`);
  return (source.namespaces ?? []).map((g) => g.name!);
}

interface State {
  server: TestServer;
  groups: string[];
  eventId: string;
  lifecyclePolicy: string;
}

const LIFECYCLE_POLICY = {
  name: 'contract lifecycle policy',
  action: 'delete' as const,
  policy_conditions: { artifact_type: 'image' as const, days_since_analyzed: 90, even_if_exists_in_runtime_inventory: false, selector: { repository: 'contract/*' } },
};

export const systemArea = defineArea<State>({
  name: 'system',
  env: () => ({ VIGIL_FEED_SYNC_ON_START: 'false' }),
  async setup(_url, server) {
    return { server, groups: [], eventId: '', lifecyclePolicy: '' };
  },
  calls: {
    ping: () => ok(sdk.ping()),
    health_check: () => ok(sdk.healthCheck()),
    health_live: () => ok(sdk.healthLive()),
    health_ready: () => ok(sdk.healthReady()),
    version_check: () => ok(sdk.versionCheck()),
    get_openapi_spec: () => ok(sdk.getOpenapiSpec()),
    get_status: () => ok(sdk.getStatus()),
    list_services: () => ok(sdk.listServices()),
    get_services_by_name: () => ok(sdk.getServicesByName({ path: { service_name: 'apiext' } })),
    get_services_by_name_and_host: (s) => ok(sdk.getServicesByNameAndHost({ path: { service_name: 'analyzer', host_id: s.server.running.services.hostId } })),
    delete_service: async (s) => {
      // Another node of the deployment that stopped beating ten minutes ago: its record may go; a live one may not.
      const gone = {
        hostId: 'contract-gone-node',
        instanceId: 'contract-gone-node:1',
        baseUrl: 'http://contract-gone-node:8228',
        version: s.server.running.services.version,
        dbVersion: 'unknown',
        startedAt: new Date(Date.now() - 3_600_000).toISOString(),
        heartbeatSeconds: 30,
        loggingLevel: 'info',
        roles: ['analyzer' as const],
      };
      await registerServices(s.server.running.services.db, gone, ['analyzer'], new Date(Date.now() - 600_000));
      await ok(sdk.deleteService({ path: { service_name: 'analyzer', host_id: 'contract-gone-node' } }));
      await expectAnswer(409, sdk.deleteService({ path: { service_name: 'analyzer', host_id: s.server.running.services.hostId } }));
    },
    get_system_statistics: () => ok(sdk.getSystemStatistics()),
    describe_error_codes: () => ok(sdk.describeErrorCodes()),
    get_deployment_history: () => ok(sdk.getDeploymentHistory()),
    get_resource_limits: () => ok(sdk.getResourceLimits()),
    list_configurations: () => ok(sdk.listConfigurations()),
    get_configuration_schema: () => ok(sdk.getConfigurationSchema()),
    put_configuration: () => ok(sdk.putConfiguration({ path: { config_key: 'reports.refresh_interval_seconds' }, body: { key: 'reports.refresh_interval_seconds', value: 5 } })),
    patch_configuration: () => ok(sdk.patchConfiguration({ body: [{ key: 'inventory.ttl_seconds', value: 3600 }] })),
    get_configuration: async () => {
      await expectAnswer(404, sdk.getConfiguration({ path: { config_key: 'no.such_setting' } }));
      await ok(sdk.getConfiguration({ path: { config_key: 'reports.refresh_interval_seconds' } }));
    },
    delete_configuration: async () => {
      await ok(sdk.deleteConfiguration({ path: { config_key: 'reports.refresh_interval_seconds' } }));
      await ok(sdk.deleteConfiguration({ path: { config_key: 'inventory.ttl_seconds' } }));
    },
    list_artifact_lifecycle_policies: () => ok(sdk.listArtifactLifecyclePolicies()),
    create_artifact_lifecycle_policy: async (s) => {
      s.lifecyclePolicy = (await ok(sdk.createArtifactLifecyclePolicy({ body: LIFECYCLE_POLICY }))).uuid;
    },
    get_artifact_lifecycle_policy: async (s) => {
      await ok(sdk.getArtifactLifecyclePolicy({ path: { policy_uuid: s.lifecyclePolicy }, query: { dry_run: true } }));
      await expectAnswer(404, sdk.getArtifactLifecyclePolicy({ path: { policy_uuid: '00000000-0000-4000-8000-000000000000' } }));
    },
    update_artifact_lifecycle_policy: (s) =>
      ok(sdk.updateArtifactLifecyclePolicy({ path: { policy_uuid: s.lifecyclePolicy }, body: { ...LIFECYCLE_POLICY, policy_conditions: { ...LIFECYCLE_POLICY.policy_conditions, days_since_analyzed: 60 } } })),
    get_artifact_lifecycle_policy_by_version: async (s) => {
      await ok(sdk.getArtifactLifecyclePolicyByVersion({ path: { policy_uuid: s.lifecyclePolicy } }));
      await ok(sdk.getArtifactLifecyclePolicyByVersion({ path: { policy_uuid: s.lifecyclePolicy }, query: { version: 1 } }));
    },
    delete_artifact_lifecycle_policy: (s) => ok(sdk.deleteArtifactLifecyclePolicy({ path: { policy_uuid: s.lifecyclePolicy } })),
    set_new_log_level: async () => {
      await ok(sdk.setNewLogLevel({ body: { service_name: 'apiext', logging_level: 'DEBUG' } }));
      // The test server logs nothing ('silent', which the API does not offer); FATAL is the quietest it does.
      await ok(sdk.setNewLogLevel({ body: { service_name: 'apiext', logging_level: 'FATAL' } }));
    },
    get_service_detail: () => ok(sdk.getServiceDetail()),
    describe_policy: () => ok(sdk.describePolicy()),
    upload_system_feed: async (s) => {
      s.groups = await uploadFeed(FEED);
      if (!s.groups.length) throw new Error('the uploaded feed has no group');
    },
    post_system_feeds: () => ok(sdk.postSystemFeeds()),
    get_system_feeds: () => ok(sdk.getSystemFeeds()),
    get_system_feed: async () => {
      const dataset = await ok(sdk.getSystemFeed({ path: { feed: 'vulnerability_db' } }));
      await ok(sdk.getSystemFeed({ path: { feed: 'vulnerability_db' }, query: { version: dataset.version! } }));
    },
    toggle_group_enabled: (s) => ok(sdk.toggleGroupEnabled({ path: { feed: FEED, group: s.groups[0] }, query: { enabled: false } })),
    toggle_feed_enabled: () => ok(sdk.toggleFeedEnabled({ path: { feed: FEED }, query: { enabled: false } })),
    delete_feed_group: (s) => ok(sdk.deleteFeedGroup({ path: { feed: FEED, group: s.groups[0] } })),
    delete_feed: () => ok(sdk.deleteFeed({ path: { feed: FEED } })),
    list_event_types: () => ok(sdk.listEventTypes()),
    list_events: async (s) => {
      const events = await ok(sdk.listEvents({ query: { limit: 10 } }));
      if (!events.results.length) throw new Error('no events were recorded by the feed operations');
      s.eventId = events.results[0].generated_uuid;
    },
    get_event: async (s) => {
      await ok(sdk.getEvent({ path: { event_id: s.eventId } }));
      await expectAnswer(404, sdk.getEvent({ path: { event_id: '00000000-0000-4000-8000-000000000000' } }));
    },
    delete_event: (s) => ok(sdk.deleteEvent({ path: { event_id: s.eventId } })),
    delete_events: () => ok(sdk.deleteEvents()),
  },
});

