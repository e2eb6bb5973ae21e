/**
 * Policy checks of an image: evaluate the chosen (or active) policy for a tag, store the result as the latest for
 * (image, tag, policy) — earlier ones stay as history — and answer the upstream PolicyEvaluation shape.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { evaluatePolicy, type PolicyEvaluationResult } from './evaluate-policy.js';
import { imageEvaluationContext } from './image-context.js';
import { activePolicy, getPolicy } from './store.js';
import { evaluationStored, stopTriggersOf } from './evaluation-observers.js';
import type { PolicyDocument } from './document.js';

export interface CheckOptions {
  tag: string;
  policyId?: string;
  detail: boolean;
  history: boolean;
  /** Evaluate without storing the result (a what-if). */
  interactive: boolean;
  now?: Date;
}

type StoredResult = PolicyEvaluationResult & { latest: boolean; last_evaluation: string; policy_digest: string };

function shown(result: StoredResult, detail: boolean): StoredResult {
  if (detail) return result;
  const { details: _details, ...rest } = result;
  return rest;
}

export async function checkImage(db: Db, accountName: string, digest: string, o: CheckOptions) {
  const record = o.policyId ? await getPolicy(db, accountName, o.policyId, true) : await activePolicy(db, accountName);
  const doc = record.policy as PolicyDocument;
  const ctx = await imageEvaluationContext(db, accountName, digest, o.tag, o.now ?? new Date());
  const result = await evaluatePolicy(doc, ctx, { detail: true });
  const policyDigest = createHash('sha256').update(JSON.stringify(doc)).digest('hex');
  const current: StoredResult = { ...result, latest: true, last_evaluation: result.evaluation_time, policy_digest: policyDigest };
  const scope = { account_name: accountName, image_digest: digest, tag: o.tag, policy_id: doc.id };
  if (!o.interactive)
    await db.transaction(async (trx) => {
      await trx('policy_evaluations').where(scope).update({ latest: false });
      const [row] = await trx('policy_evaluations')
        .insert({
          ...scope,
          policy_digest: policyDigest,
          status: result.status,
          final_action: result.final_action,
          final_action_reason: result.final_action_reason,
          latest: true,
          result: JSON.stringify(current),
          evaluation_time: result.evaluation_time,
        })
        .returning('id');
      await evaluationStored(trx, {
        accountName,
        imageDigest: digest,
        tag: o.tag,
        policyId: doc.id,
        policyActive: record.active,
        evaluationId: String((row as { id: number }).id),
        status: result.status,
        finalAction: result.final_action,
        finalActionReason: result.final_action_reason,
        evaluationTime: result.evaluation_time,
        stopTriggers: stopTriggersOf(result),
      });
    });
  const evaluations = [shown(current, o.detail)];
  if (o.history) {
    const earlier: { result: string; latest: unknown; id: number }[] = await db('policy_evaluations')
      .where(scope)
      .orderBy([{ column: 'evaluation_time', order: 'desc' }, { column: 'id', order: 'desc' }])
      .select('result', 'latest', 'id');
    // The one just stored is `current`; the rest are history, newest first.
    for (const row of earlier.slice(o.interactive ? 0 : 1))
      evaluations.push(shown({ ...(JSON.parse(row.result) as StoredResult), latest: toBool(row.latest) && o.interactive }, o.detail));
  }
  return { policy_id: doc.id, image_digest: digest, evaluated_tag: o.tag, evaluations };
}
