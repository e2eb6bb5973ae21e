/**
 * Alerts raised by stored policy evaluations. A tag is watched when the account has an active `alerts`
 * subscription whose key is the tag or its repository (registry/repository). Only evaluations of the active policy
 * for the image the tag currently points at count. The rule, per tag:
 * - STOP and the tag's newest alert is open: the alert follows it (digest, evaluation, triggers); no new event.
 * - STOP and no alert, or the newest one was cleared by a pass: a new alert opens (event `…opened`).
 * - STOP and the newest alert was closed by a user but not cleared: the user dismissed this failing episode; nothing.
 * - a pass: open alerts close (closed_by `system`, event `…closed`) and the newest alert is marked cleared, so the
 *   next STOP opens a new one.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import { fullName, parseImageReference } from '../images/sources/references.js';
import { observeStoredEvaluations, type StoredEvaluation } from '../policy/evaluation-observers.js';
import { nowIso } from '../util/time.js';
import { alertOfRow, recordAlertEvent, type ComplianceAlert } from './compliance-alerts.js';

/** Bound on the triggers an alert keeps (violations_count still counts them all). */
const MAX_TRIGGERS = 100;

/** Composition (src/service.ts): every evaluation this process stores may open or close an alert. */
export function raiseAlertsOnEvaluations(): void {
  observeStoredEvaluations(alertsForEvaluation);
}

async function watched(trx: Db, accountName: string, tag: string, repository: string): Promise<boolean> {
  const row = await trx('subscriptions')
    .where({ account_name: accountName, subscription_type: 'alerts', active: true })
    .whereIn('subscription_key', [tag, repository])
    .first('id');
  return !!row;
}

/** A check may evaluate a tag the image had; only the image the tag points at now speaks for the tag. */
async function currentImageOf(trx: Db, e: StoredEvaluation): Promise<boolean> {
  const row = await trx('image_tags').where({ account_name: e.accountName, image_digest: e.imageDigest, full_tag: e.tag, current: true }).first('full_tag');
  return !!row;
}

export async function alertsForEvaluation(trx: Db, e: StoredEvaluation): Promise<void> {
  if (!e.policyActive) return;
  const ref = parseImageReference(e.tag);
  const repository = fullName(ref);
  if (!(await watched(trx, e.accountName, e.tag, repository)) || !(await currentImageOf(trx, e))) return;
  const now = nowIso();
  const scope = { account_name: e.accountName, image_tag: e.tag };
  const newestRow = await trx('compliance_alerts').where(scope).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'uuid', order: 'desc' }]).first();
  const newest = newestRow ? alertOfRow(newestRow) : undefined;
  if (e.finalAction !== 'stop') {
    const open = (await trx('compliance_alerts').where({ ...scope, state: 'open' })).map(alertOfRow);
    const closing = { state: 'closed' as const, closed_by: 'system', closed_reason: `policy evaluation ${e.evaluationId} passed`, last_updated: now };
    if (newest && !newest.cleared) await trx('compliance_alerts').where({ uuid: newest.uuid }).update({ cleared: true });
    for (const alert of open) {
      await trx('compliance_alerts').where({ uuid: alert.uuid }).update(closing);
      await recordAlertEvent(trx, { ...alert, ...closing, cleared: true });
    }
    return;
  }
  const evaluation = {
    image_digest: e.imageDigest,
    policy_id: e.policyId,
    evaluation_id: e.evaluationId,
    evaluated_at: e.evaluationTime,
    compliance_status_reason: e.finalActionReason,
    violations_count: e.stopTriggers.length,
    triggers: e.stopTriggers.slice(0, MAX_TRIGGERS),
  };
  if (newest?.state === 'open') {
    await trx('compliance_alerts')
      .where({ uuid: newest.uuid })
      .update({ ...evaluation, triggers: JSON.stringify(evaluation.triggers), last_updated: now });
    return;
  }
  if (newest && !newest.cleared) return;
  // Strictly after the tag's newest alert, so "newest" (by created_at) never ties within a millisecond.
  const createdAt = newest && newest.created_at >= now ? new Date(Date.parse(newest.created_at) + 1).toISOString() : now;
  const alert: ComplianceAlert = {
    uuid: randomUUID(),
    ...scope,
    state: 'open',
    registry: ref.registry,
    repository: ref.repository,
    ...evaluation,
    closed_by: null,
    closed_reason: null,
    cleared: false,
    created_at: createdAt,
    last_updated: createdAt,
  };
  await trx('compliance_alerts').insert({ ...alert, triggers: JSON.stringify(alert.triggers) });
  await recordAlertEvent(trx, alert);
}
