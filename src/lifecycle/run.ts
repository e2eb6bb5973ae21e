/**
 * Running artifact lifecycle policies: the periodic `artifact_lifecycle_run` job applies each enabled policy's
 * current conditions to the images of every account and deletes what they select through the images' own
 * deletion (so its guards hold: an image being analysed is skipped, and tried again next run). Each policy's run
 * is recorded as an event of the admin account naming what it deleted and skipped. The dry run walks the same
 * selection and only counts.
 */
import type { Logger } from 'pino';
import { ADMIN_ACCOUNT } from '../auth/accounts.js';
import type { Db } from '../db/index.js';
import { recordEvent } from '../events/events.js';
import { deleteImage } from '../images/store.js';
import { definePeriodicJob } from '../jobs/periodic.js';
import { nowIso } from '../util/time.js';
import { analyzedBefore, selectorMatches, type PolicyConditions } from './model.js';
import { getLivePolicy } from './policies.js';
import { candidatePage, currentTagsOf, imageKey, inInventory, listLivePolicies, versionsOf, type CandidateImage } from './store.js';

export const ARTIFACT_LIFECYCLE_RUN_JOB = definePeriodicJob({ kind: 'artifact_lifecycle_run', role: 'scheduler' });
/** Hourly; deletion is not urgent, and a policy's age is in days. */
export const ARTIFACT_LIFECYCLE_SCHEDULE = { cron: '23 * * * *' };
export const RUN_EVENT = 'system.artifact_lifecycle.policy_executed';

const PAGE_SIZE = 500;
/** One run of a policy deletes at most this many images (the event lists each); the next run goes on. */
export const MAX_DELETIONS_PER_RUN = 500;

/** The images the conditions select now, a page at a time. */
async function* selectedImages(db: Db, conditions: PolicyConditions, now: number): AsyncGenerator<CandidateImage[]> {
  const before = analyzedBefore(conditions, now);
  let after: CandidateImage | null = null;
  for (;;) {
    const page = await candidatePage(db, before, after, PAGE_SIZE);
    if (page.length === 0) return;
    const tags = await currentTagsOf(db, page);
    const running = conditions.even_if_exists_in_runtime_inventory ? new Set<string>() : await inInventory(db, page, tags);
    yield page.filter((i) => !running.has(imageKey(i)) && selectorMatches(conditions.selector, tags.get(imageKey(i)) ?? []));
    after = page[page.length - 1]!;
  }
}

async function currentConditions(db: Db, uuid: string, version: number): Promise<PolicyConditions> {
  const [conditions] = (await versionsOf(db, [uuid], [version])).get(uuid) ?? [];
  if (!conditions) throw new Error(`artifact lifecycle policy ${uuid} lacks its version ${version}`); // the migration's keys forbid it
  return conditions;
}

/** How many images the policy's current version would delete now (nothing is deleted). */
export async function dryRunCount(db: Db, uuid: string): Promise<{ image_count: number; evaluated_at: string }> {
  const policy = await getLivePolicy(db, uuid);
  const conditions = await currentConditions(db, uuid, policy.current_version);
  const evaluatedAt = nowIso();
  let count = 0;
  for await (const selected of selectedImages(db, conditions, Date.parse(evaluatedAt))) count += selected.length;
  return { image_count: count, evaluated_at: evaluatedAt };
}

interface Deletion {
  account_name: string;
  image_digest: string;
}

/** One slot of the job: every enabled policy in turn, each recorded as an event. */
export async function runLifecyclePolicies(db: Db, log: Pick<Logger, 'info'>, slot: string): Promise<void> {
  for (const policy of await listLivePolicies(db, true)) {
    const conditions = await currentConditions(db, policy.uuid, policy.current_version);
    const deleted: Deletion[] = [];
    const skipped: (Deletion & { detail: string })[] = [];
    let truncated = false;
    pages: for await (const selected of selectedImages(db, conditions, Date.now())) {
      for (const image of selected) {
        if (deleted.length >= MAX_DELETIONS_PER_RUN) {
          truncated = true;
          break pages;
        }
        const outcome = await deleteImage(db, image.account_name, image.image_digest, false);
        if (outcome.status === 'deleted') deleted.push(image);
        else if (outcome.status === 'delete_failed' && skipped.length < MAX_DELETIONS_PER_RUN) skipped.push({ ...image, detail: outcome.detail ?? '' });
      }
    }
    await recordEvent(db, {
      accountName: ADMIN_ACCOUNT,
      type: RUN_EVENT,
      resourceType: 'artifact_lifecycle_policy',
      resourceId: policy.uuid,
      message: `Artifact lifecycle policy '${policy.name}' deleted ${deleted.length} image(s)`,
      details: { policy_uuid: policy.uuid, policy_name: policy.name, version: policy.current_version, slot, deleted_count: deleted.length, deleted, skipped, truncated },
    });
    if (deleted.length) log.info({ policy: policy.uuid, version: policy.current_version, deleted: deleted.length, skipped: skipped.length }, 'artifact lifecycle policy deleted images');
  }
}
