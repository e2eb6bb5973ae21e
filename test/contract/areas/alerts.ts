/**
 * Compliance-violation alerts: an uploaded image's tag with an `alerts` subscription fails a policy that always
 * stops, so one alert is open; it is listed, read, closed by hand and summarised.
 */
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { waitForAnalysis } from '../../support/analysis.js';
import { buildImage, dockerArchiveTar } from '../../support/image-builder.js';
import { waitForJobsSettled } from '../../support/registry-fixtures.js';
import { binaryBody, defineArea, expectAnswer, ok } from '../harness.js';

const TAG = 'contract.example/alerts/app:1';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

interface State {
  uuid: string;
}

const STOPPER = {
  id: 'ct-alerts-stopper',
  name: 'always stops',
  version: '2',
  rule_sets: [{ id: 'rs', name: 'rs', version: '2', rules: [{ id: 'stop', gate: 'always', trigger: 'always', action: 'STOP' as const, params: [] }] }],
  allowlists: [],
  mappings: [{ id: 'all', name: 'all', registry: '*', repository: '*', image: { type: 'tag' as const, value: '*' }, rule_set_ids: ['rs'], allowlist_ids: [] }],
};

export const alertsArea = defineArea<State>({
  name: 'alerts',
  env: () => ({ VIGIL_FEED_SYNC_ON_START: 'false' }),
  async setup(_url, server) {
    const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.1\n' }]] });
    const added = await ok(sdk.addImageArchive({ query: { tag: TAG }, ...binaryBody(await dockerArchiveTar(image, { repoTags: [TAG] }), 'application/x-tar') }));
    if ((await waitForAnalysis(server, 'admin', added.image_digest)) !== 'analyzed') throw new Error('the image was not analyzed');
    await ok(sdk.addSubscription({ body: { subscription_key: TAG, subscription_type: 'alerts' } }));
    await ok(sdk.addPolicy({ body: STOPPER }));
    await ok(sdk.updatePolicy({ path: { policy_id: STOPPER.id }, query: { active: true }, body: { policy: STOPPER } }));
    await waitForJobsSettled(server, 'admin');
    return { uuid: '' };
  },
  calls: {
    get_compliance_violation_alerts: async (s) => {
      const [alert] = await ok(sdk.getComplianceViolationAlerts({ query: { state: 'open', resource_image_tag: TAG, limit: 10 } }));
      if (!alert?.uuid) throw new Error('no open alert for the failing tag');
      s.uuid = alert.uuid;
    },
    get_compliance_violation_alert: async (s) => {
      await ok(sdk.getComplianceViolationAlert({ path: { uuid: s.uuid } }));
      await expectAnswer(404, sdk.getComplianceViolationAlert({ path: { uuid: UNKNOWN } }));
    },
    update_compliance_violation_alert_state: async (s) => {
      const closed = await ok(sdk.updateComplianceViolationAlertState({ path: { uuid: s.uuid }, body: { state: 'closed' } }));
      if (closed.state !== 'closed') throw new Error('the alert did not close');
      await expectAnswer(404, sdk.updateComplianceViolationAlertState({ path: { uuid: UNKNOWN }, body: { state: 'closed' } }));
    },
    get_alert_summaries: async (s) => {
      const closed = await ok(sdk.getAlertSummaries({ query: { state: 'closed', type: 'compliance_violation', resource_label: [`tag=${TAG}`] } }));
      if (!closed.some((a) => a.uuid === s.uuid)) throw new Error('the closed alert is not summarised');
      await expectAnswer(400, sdk.getAlertSummaries({ query: { resource_label: ['colour=blue'] } }));
    },
  },
});
