/**
 * Keeping policy results current: an image's current tags are evaluated again with the account's active policy
 * after its analysis, after a feed update changed its findings, and after the active policy changed. When a
 * tag's result flips (pass <-> fail) and the tag has an active `policy_eval` subscription, an event records the
 * last and the current evaluation.
 */
import type { Logger } from 'pino';
import type { Db } from '../db/index.js';
import { recordEvent } from '../events/events.js';
import { checkImage } from './evaluations.js';
import type { Services } from '../service.js';
import { activePolicy } from './store.js';
import { defineJob } from '../jobs/definition.js';

/** Re-evaluates the named images of an account (after a feed change re-matched them); at most 500 per job. */
export const POLICY_REEVALUATE_IMAGES_JOB = defineJob<{ accountName: string; imageDigests: string[] }>({
  kind: 'policy_reevaluate_images',
  role: 'feeds',
  maxAttempts: 2,
  schema: {
    type: 'object',
    properties: {
      accountName: { type: 'string', minLength: 1 },
      imageDigests: { type: 'array', maxItems: 500, items: { type: 'string', pattern: '^sha256:[a-f0-9]{64}$' } },
    },
    required: ['accountName', 'imageDigests'],
    additionalProperties: false,
  },
});

/** Re-evaluates images one by one; a failing evaluation is logged and never stops the others (or the caller). */
export async function reevaluateImagesQuietly(db: Db, log: Logger, accountName: string, digests: readonly string[]): Promise<void> {
  for (const digest of digests) {
    try {
      await reevaluateImage(db, accountName, digest);
    } catch (err) {
      log.warn({ err, account: accountName, image_digest: digest }, 'policy re-evaluation failed');
    }
  }
}

/** Re-evaluates an account's images; one waiting job per account covers any number of requests. */
export const POLICY_REEVALUATE_JOB = defineJob<{ accountName: string }>({
  kind: 'policy_reevaluate',
  role: 'feeds',
  maxAttempts: 2,
  schema: { type: 'object', properties: { accountName: { type: 'string', minLength: 1 } }, required: ['accountName'], additionalProperties: false },
  dedupKey: (p) => `policy_reevaluate:${p.accountName}`,
});

interface StoredSummary {
  status: string;
  final_action: string;
  evaluation_time: string;
}

/** The tag's newest stored result under any policy: what its users last saw, so a change of policy counts too. */
async function latestStored(db: Db, scope: { account_name: string; image_digest: string; tag: string }): Promise<StoredSummary | undefined> {
  return db('policy_evaluations')
    .where(scope)
    .orderBy([{ column: 'evaluation_time', order: 'desc' }, { column: 'id', order: 'desc' }])
    .first('status', 'final_action', 'evaluation_time');
}

async function subscribed(db: Db, accountName: string, fullTag: string): Promise<boolean> {
  const row = await db('subscriptions').where({ account_name: accountName, subscription_type: 'policy_eval', subscription_key: fullTag, active: true }).first('id');
  return !!row;
}

/** Evaluates the image's current tags; answers how many results flipped. Skips images not analyzed. */
export async function reevaluateImage(db: Db, accountName: string, digest: string): Promise<number> {
  const image = await db('images').where({ account_name: accountName, image_digest: digest }).first('analysis_status');
  if (image?.analysis_status !== 'analyzed') return 0;
  const policy = await activePolicy(db, accountName);
  const tags: { full_tag: string }[] = await db('image_tags').where({ account_name: accountName, image_digest: digest, current: true }).select('full_tag');
  let flipped = 0;
  for (const { full_tag } of tags) {
    const before = await latestStored(db, { account_name: accountName, image_digest: digest, tag: full_tag });
    const now = await checkImage(db, accountName, digest, { tag: full_tag, policyId: policy.policy_id, detail: false, history: false, interactive: false });
    const current = now.evaluations[0]!;
    if (!before || before.status === current.status) continue;
    flipped++;
    if (await subscribed(db, accountName, full_tag))
      await recordEvent(db, {
        accountName,
        type: 'user.checks.tag.policy_evaluation.update',
        resourceType: 'image_tag',
        resourceId: full_tag,
        message: `${full_tag}: policy ${policy.policy_id} result changed from ${before.status} to ${current.status}`,
        details: {
          subscription_type: 'policy_eval',
          subscription_key: full_tag,
          image_digest: digest,
          policy_id: policy.policy_id,
          last_eval: { status: before.status, final_action: before.final_action, evaluation_time: before.evaluation_time },
          curr_eval: { status: current.status, final_action: current.final_action, evaluation_time: current.evaluation_time, final_action_reason: current.final_action_reason },
        },
      });
  }
  return flipped;
}

/** Every analyzed image of the account with a current tag (after the active policy changed). */
export async function reevaluateAccount(db: Db, accountName: string): Promise<{ images: number; flipped: number }> {
  const images: { image_digest: string }[] = await db('images as i')
    .join('image_tags as t', function joinTags() {
      this.on('t.account_name', '=', 'i.account_name').andOn('t.image_digest', '=', 'i.image_digest');
    })
    .where({ 'i.account_name': accountName, 'i.analysis_status': 'analyzed', 't.current': true })
    .distinct('i.image_digest');
  let flipped = 0;
  for (const { image_digest } of images) flipped += await reevaluateImage(db, accountName, image_digest);
  return { images: images.length, flipped };
}

/** Queues a re-evaluation of the account's images (the active policy or its document changed). */
export async function queuePolicyReevaluation(services: Services, accountName: string): Promise<void> {
  await services.jobs.enqueue(POLICY_REEVALUATE_JOB, { accountName }, { accountName });
  services.worker.wake();
}
