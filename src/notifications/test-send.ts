/**
 * Test sends: a sample notification of a chosen type, delivered at once through the same channel, outbound
 * policy and timeouts as real ones, so a passing test means real notifications will arrive too.
 */
import { randomUUID } from 'node:crypto';
import { nowIso } from '../util/time.js';
import type { Db } from '../db/index.js';
import type { SecretBox } from '../util/secret-box.js';
import { channelFor } from './channels/index.js';
import { deliveryTarget, recordStatus, type ConfigurationRecord } from './configurations.js';
import type { DeliveryOptions, DeliveryOutcome, DeliveryTarget, NotificationMessage, NotificationType } from './types.js';

export type SampleType = Extract<NotificationType, 'tag_update' | 'analysis_update' | 'vuln_update' | 'policy_eval'>;

const SAMPLE_TAG = 'docker.io/library/alpine:latest';
const SAMPLE_DIGEST = `sha256:${'0'.repeat(64)}`;
const PREVIOUS_DIGEST = `sha256:${'1'.repeat(64)}`;

function samplePayload(type: SampleType, evaluatedAt: string): Record<string, unknown> {
  switch (type) {
    case 'tag_update':
      return { subscription_key: SAMPLE_TAG, last_eval: [PREVIOUS_DIGEST], curr_eval: [SAMPLE_DIGEST] };
    case 'analysis_update':
      return {
        subscription_key: SAMPLE_TAG,
        image_digest: SAMPLE_DIGEST,
        last_eval: { analysis_status: 'analyzing', image_digest: SAMPLE_DIGEST, annotations: {} },
        curr_eval: { analysis_status: 'analyzed', image_digest: SAMPLE_DIGEST, annotations: {} },
      };
    case 'vuln_update':
      return {
        subscription_key: SAMPLE_TAG,
        image_digest: SAMPLE_DIGEST,
        diff_vulnerability_result: {
          added: [{ vuln: 'CVE-0000-0000', severity: 'Critical', package: 'sample-1.0', package_name: 'sample', package_version: '1.0', package_type: 'apk', fix: '1.1', url: null }],
          updated: [],
          removed: [],
        },
      };
    case 'policy_eval':
      return {
        subscription_key: SAMPLE_TAG,
        image_digest: SAMPLE_DIGEST,
        policy_id: 'sample',
        last_eval: { status: 'pass', final_action: 'go', evaluation_time: evaluatedAt },
        curr_eval: { status: 'fail', final_action: 'stop', evaluation_time: evaluatedAt, final_action_reason: 'policy_evaluation' },
      };
  }
}

export function sampleMessage(accountName: string, accountEmail: string | null, type: SampleType): NotificationMessage {
  const id = randomUUID();
  const now = nowIso();
  return {
    id,
    accountName,
    accountEmail,
    notificationType: type,
    createdAt: now,
    event: { id, type: 'vigil.notification.test', level: 'INFO', message: `Test ${type} notification from Vigil`, resource_type: 'image_tag', resource_id: SAMPLE_TAG, timestamp: now },
    payload: { account_name: accountName, subscription_type: type, ...samplePayload(type, now), annotations: { test: true }, notification_id: id },
  };
}

export interface TestResult {
  status: 'success' | 'failure';
  /** What the receiver answered, or why nothing was sent. */
  response: string;
}

/** Sends a sample of `type` to the target now; answers the upstream test result and the raw outcome. */
export async function sendTest(
  target: DeliveryTarget,
  account: { name: string; email: string | null },
  type: SampleType,
  options: DeliveryOptions,
): Promise<{ result: TestResult; outcome: DeliveryOutcome }> {
  const outcome = await channelFor(target.kind).deliver(target, sampleMessage(account.name, account.email, type), options);
  const response = outcome.ok ? outcome.response : [outcome.error, outcome.response].filter(Boolean).join(': ');
  return { result: { status: outcome.ok ? 'success' : 'failure', response }, outcome };
}

/** A test of a stored configuration also sets its operational status, as a delivery would. */
export async function testStoredConfiguration(
  db: Db,
  box: SecretBox,
  configuration: ConfigurationRecord,
  account: { name: string; email: string | null },
  type: SampleType,
  options: DeliveryOptions,
): Promise<TestResult> {
  const { result, outcome } = await sendTest(deliveryTarget(box, configuration), account, type, options);
  await recordStatus(db, configuration.uuid, outcome, nowIso());
  return result;
}
