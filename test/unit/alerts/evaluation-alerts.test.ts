/**
 * The alert rule on a real (scratch) database, driven by stored evaluations as the policy hook delivers them:
 * which evaluations count (an alerts subscription by tag or repository, the active policy, the tag's current image),
 * one alert per failing episode, a pass closing it, a user's dismissal holding until the tag passes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setAlertState } from '../../../src/alerts/compliance-alerts.js';
import { alertsForEvaluation } from '../../../src/alerts/evaluation-alerts.js';
import type { Db } from '../../../src/db/index.js';
import type { StoredEvaluation } from '../../../src/policy/evaluation-observers.js';
import { createTestDb } from '../../support/db.js';
import { insertImageRow } from '../../support/image-rows.js';

const ACCOUNT = 'alerts-unit';
const TAG = 'registry.example.com/team/app:1';
const CURRENT = `sha256:${'a'.repeat(64)}`;
const OLD = `sha256:${'b'.repeat(64)}`;
const AT = '2026-11-27T00:00:00.000Z';
let db: Db;
let close: () => Promise<void>;
let evaluationIds = 0;

function evaluation(action: 'stop' | 'go', overrides: Partial<StoredEvaluation> = {}): StoredEvaluation {
  return {
    accountName: ACCOUNT,
    imageDigest: CURRENT,
    tag: TAG,
    policyId: 'p',
    policyActive: true,
    evaluationId: String(++evaluationIds),
    status: action === 'stop' ? 'fail' : 'pass',
    finalAction: action,
    finalActionReason: 'policy_evaluation',
    evaluationTime: AT,
    stopTriggers: action === 'stop' ? [{ gate: 'always', trigger: 'always', trigger_id: 'always', rule_id: 'r1' }] : [],
    ...overrides,
  };
}

const stored = (e: StoredEvaluation) => db.transaction((trx) => alertsForEvaluation(trx, e));
const alerts = async () => (await db('compliance_alerts').where({ account_name: ACCOUNT }).orderBy('created_at').select('uuid', 'state', 'closed_by', 'evaluation_id', 'cleared')) as any[];
const events = async () => (await db('events').where({ account_name: ACCOUNT }).orderBy('timestamp').select('type')).map((r: { type: string }) => r.type);

async function subscribe(key: string): Promise<void> {
  await db('subscriptions').insert({ id: randomUUID(), account_name: ACCOUNT, subscription_type: 'alerts', subscription_key: key, active: true, created_at: AT, last_updated: AT });
}

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  for (const [digest, current] of [[CURRENT, true], [OLD, false]] as const) {
    await insertImageRow(db, ACCOUNT, digest, 'analyzed');
    await db('image_tags').insert({
      account_name: ACCOUNT, image_digest: digest, registry: 'registry.example.com', repo: 'team/app', tag: '1', full_tag: TAG,
      tag_detected_at: AT, current, created_at: AT, last_updated: AT,
    });
  }
});
afterAll(() => close());
beforeEach(async () => {
  for (const table of ['compliance_alerts', 'events', 'subscriptions']) await db(table).where({ account_name: ACCOUNT }).delete();
});

describe('alerts from stored evaluations', () => {
  it('ignores tags without an alerts subscription, other policies and images the tag no longer points at', async () => {
    await stored(evaluation('stop'));
    await subscribe(TAG);
    await stored(evaluation('stop', { policyActive: false }));
    await stored(evaluation('stop', { imageDigest: OLD }));
    expect(await alerts()).toEqual([]);
  });

  it('opens one alert per failing episode, follows it, and closes it on a pass', async () => {
    await subscribe('registry.example.com/team/app');
    await stored(evaluation('stop'));
    await stored(evaluation('stop'));
    let [alert, ...rest] = await alerts();
    expect(rest).toEqual([]);
    expect(alert).toMatchObject({ state: 'open', evaluation_id: String(evaluationIds) });
    await stored(evaluation('go'));
    [alert] = await alerts();
    expect(alert).toMatchObject({ state: 'closed', closed_by: 'system' });
    await stored(evaluation('stop'));
    expect((await alerts()).map((a) => a.state)).toEqual(['closed', 'open']);
    expect(await events()).toEqual(['user.alerts.compliance_violation.opened', 'user.alerts.compliance_violation.closed', 'user.alerts.compliance_violation.opened']);
  });

  it("keeps a user's dismissal until the tag passes", async () => {
    await subscribe(TAG);
    await stored(evaluation('stop'));
    const [alert] = await alerts();
    await setAlertState(db, ACCOUNT, alert.uuid, 'closed', 'someone');
    await stored(evaluation('stop'));
    expect(await alerts()).toHaveLength(1);
    await stored(evaluation('go'));
    await stored(evaluation('stop'));
    expect((await alerts()).map((a) => [a.state, a.closed_by])).toEqual([['closed', 'someone'], ['open', null]]);
  });
});
