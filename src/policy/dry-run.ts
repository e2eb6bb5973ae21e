/**
 * Trying a draft policy before activating it: the draft and the active policy are evaluated (nothing stored)
 * against every current tag of the account's analyzed images, and the answer lists the tags whose result would
 * change, with the draft's stopping findings as the reasons.
 */
import type { Db } from '../db/index.js';
import type { PolicyDocument } from './document.js';
import { evaluatePolicy, type FinalAction } from './evaluate-policy.js';
import { imageEvaluationContext } from './image-context.js';
import { activePolicy } from './store.js';
import { assertValidPolicy } from './validate-policy.js';

const MAX_REASONS = 20;

export interface DryRunTag {
  tag: string;
  image_digest: string;
  current: { status: 'pass' | 'fail'; final_action: FinalAction };
  draft: { status: 'pass' | 'fail'; final_action: FinalAction; final_action_reason: string };
  change: 'pass_to_fail' | 'fail_to_pass' | 'none';
  /** The draft's non-allowlisted STOP findings (at most 20), or why the image is denylisted. */
  reasons: { gate: string; trigger: string; trigger_id: string; message: string }[];
}

export async function dryRunPolicy(db: Db, accountName: string, draft: PolicyDocument, now = new Date()) {
  assertValidPolicy(draft);
  const active = await activePolicy(db, accountName);
  const tags: { full_tag: string; image_digest: string }[] = await db('image_tags as t')
    .join('images as i', function joinImage() {
      this.on('i.account_name', '=', 't.account_name').andOn('i.image_digest', '=', 't.image_digest');
    })
    .where({ 't.account_name': accountName, 't.current': true, 'i.analysis_status': 'analyzed' })
    .orderBy(['t.full_tag'])
    .select('t.full_tag', 't.image_digest');
  const results: DryRunTag[] = [];
  for (const t of tags) {
    const ctx = await imageEvaluationContext(db, accountName, t.image_digest, t.full_tag, now);
    const current = await evaluatePolicy(active.policy, ctx, { detail: false });
    const next = await evaluatePolicy(draft, ctx, { detail: true });
    const reasons = next.image_denylisted
      ? [{ gate: 'denylisted_images', trigger: 'image', trigger_id: next.matched_denylisted_images_rule?.id ?? '', message: 'the image is denylisted by the draft' }]
      : (next.details?.findings ?? [])
          .filter((f) => f.action === 'stop' && !f.allowlisted)
          .slice(0, MAX_REASONS)
          .map((f) => ({ gate: f.gate, trigger: f.trigger, trigger_id: f.trigger_id, message: f.message }));
    results.push({
      tag: t.full_tag,
      image_digest: t.image_digest,
      current: { status: current.status, final_action: current.final_action },
      draft: { status: next.status, final_action: next.final_action, final_action_reason: next.final_action_reason },
      change: current.status === next.status ? 'none' : next.status === 'fail' ? 'pass_to_fail' : 'fail_to_pass',
      reasons,
    });
  }
  return {
    active_policy_id: active.policy_id,
    draft_policy_id: draft.id,
    evaluated_at: now.toISOString(),
    summary: {
      tags: results.length,
      pass_to_fail: results.filter((r) => r.change === 'pass_to_fail').length,
      fail_to_pass: results.filter((r) => r.change === 'fail_to_pass').length,
      unchanged: results.filter((r) => r.change === 'none').length,
    },
    tags: results,
  };
}
