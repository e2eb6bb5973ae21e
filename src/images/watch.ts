/**
 * Watches: active tag_update subscriptions are polled (a tag that now points at a new digest gets that digest
 * added and analyzed, with the tag move recorded), and repo_update subscriptions are listed for new tags, which
 * get their own tag_update watch. Each due watch is claimed before it is checked, so nodes never repeat work.
 */
import type { Logger } from 'pino';
import { recordEvent } from '../events/events.js';
import type { Services } from '../service.js';
import { definePeriodicJob } from '../jobs/periodic.js';
import { addImageFromRegistry } from './add.js';
import { registryClientOptions } from './registry-credentials.js';
import { fullTag, parseImageReference } from './sources/references.js';
import { RegistryClient } from './sources/registry.js';
import { addSubscription, claimDueWatches, listSubscriptions, markChecked, type SubscriptionRecord } from './subscriptions.js';

const BATCH = 100;

export interface RepositoryWatchSettings {
  auto_subscribe: boolean;
  exclude_existing_tags: boolean;
}

export interface PollSummary {
  tagsChecked: number;
  reposChecked: number;
  imagesAdded: string[];
  failures: number;
}

async function checkTag(services: Services, sub: SubscriptionRecord, summary: PollSummary): Promise<void> {
  const current = await services.db('image_tags').where({ account_name: sub.account_name, full_tag: sub.subscription_key, current: true }).first('image_digest');
  const image = await addImageFromRegistry(services, sub.account_name, { tag: { pull_string: sub.subscription_key }, annotations: {}, force: false });
  if (image.image_digest !== current?.image_digest) summary.imagesAdded.push(`${sub.subscription_key}@${image.image_digest}`);
}

/** The tags of a watched repository, each given a tag_update watch (new tags are then picked up by checkTag). */
export async function watchRepositoryTags(services: Services, accountName: string, repository: string, signal?: AbortSignal): Promise<string[]> {
  const ref = parseImageReference(repository);
  const connection = await registryClientOptions(services, accountName, ref.registry, ref.repository);
  const client = new RegistryClient(ref.registry, {
    ...connection,
  });
  const tags = await client.listTags(ref.repository, signal);
  return tags.map((tag) => fullTag({ registry: ref.registry, repository: ref.repository, tag }));
}

async function checkRepository(services: Services, sub: SubscriptionRecord): Promise<void> {
  const settings = JSON.parse(sub.subscription_value ?? '{}') as Partial<RepositoryWatchSettings>;
  const known = new Set((await listSubscriptions(services.db, sub.account_name, { type: 'tag_update' })).map((s) => s.subscription_key));
  for (const tag of await watchRepositoryTags(services, sub.account_name, sub.subscription_key)) {
    if (known.has(tag)) continue;
    // A new tag gets a watch that is due at once; without auto_subscribe it is checked once, then deactivated.
    await addSubscription(services.db, sub.account_name, { type: 'tag_update', key: tag, value: settings.auto_subscribe === false ? ONCE : null }, { upsert: true });
  }
}

/** subscription_value of a tag watch that is checked once and then deactivated (auto_subscribe=false). */
const ONCE = JSON.stringify({ once: true });

/**
 * Starts watching a repository: its repo_update subscription, and a tag watch for each tag it has now (due at
 * the next sweep; with exclude_existing_tags remembered but inactive, so they never count as new). Listing the
 * tags first proves the repository exists and the credentials work, before anything is stored. A dry run answers
 * what would be created and stores nothing.
 */
export async function watchRepository(
  services: Services,
  accountName: string,
  repository: string,
  options: { settings: RepositoryWatchSettings; dryRun: boolean },
): Promise<SubscriptionRecord[]> {
  const tags = await watchRepositoryTags(services, accountName, repository);
  const { settings } = options;
  const tagWatch = (key: string) => ({ type: 'tag_update' as const, key, active: !settings.exclude_existing_tags, value: settings.auto_subscribe ? null : ONCE });
  if (options.dryRun) {
    const now = new Date().toISOString();
    const preview = (type: SubscriptionRecord['subscription_type'], key: string, value: string | null): SubscriptionRecord => ({
      id: '00000000-0000-0000-0000-000000000000',
      account_name: accountName,
      subscription_type: type,
      subscription_key: key,
      subscription_value: value,
      active: true,
      last_checked_at: null,
      created_at: now,
      last_updated: now,
    });
    return [preview('repo_update', repository, JSON.stringify(settings)), ...(settings.exclude_existing_tags ? [] : tags.map((t) => preview('tag_update', t, tagWatch(t).value)))];
  }
  const repo = await addSubscription(services.db, accountName, { type: 'repo_update', key: repository, value: JSON.stringify(settings) }, { upsert: true });
  const created = [repo];
  for (const tag of tags) {
    const [existing] = await listSubscriptions(services.db, accountName, { type: 'tag_update', key: tag });
    created.push(existing ?? (await addSubscription(services.db, accountName, tagWatch(tag))));
  }
  // The tags just listed are known; the repository is listed again one watch interval from now.
  await markChecked(services.db, repo.id);
  return created;
}

export async function pollWatches(services: Services, intervalSeconds: number, log: Logger = services.log): Promise<PollSummary> {
  const dueBefore = new Date(Date.now() - intervalSeconds * 1000).toISOString();
  const summary: PollSummary = { tagsChecked: 0, reposChecked: 0, imagesAdded: [], failures: 0 };
  for (const sub of await claimDueWatches(services.db, 'repo_update', dueBefore, BATCH)) {
    summary.reposChecked++;
    try {
      await checkRepository(services, sub);
    } catch (err) {
      summary.failures++;
      log.warn({ err, repository: sub.subscription_key }, 'repository watch failed');
      await recordEvent(services.db, {
        accountName: sub.account_name,
        type: 'system.repository.list_tags_fail',
        resourceType: 'repository',
        resourceId: sub.subscription_key,
        message: `Listing the tags of ${sub.subscription_key} failed: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }
  // Never-checked tags (new ones from repositories included) are due at once.
  for (const sub of await claimDueWatches(services.db, 'tag_update', dueBefore, BATCH)) {
    summary.tagsChecked++;
    try {
      await checkTag(services, sub, summary);
      if (sub.subscription_value === ONCE) await services.db('subscriptions').where({ id: sub.id }).update({ active: false });
    } catch (err) {
      summary.failures++; // addImageFromRegistry has recorded the failed lookup as an event
      log.warn({ err, tag: sub.subscription_key }, 'tag watch failed');
    }
  }
  return summary;
}

/** The sweep of watched tags and repositories, every VIGIL_WATCH_INTERVAL_SECONDS (30 s at most). */
export const WATCH_SWEEP_JOB = definePeriodicJob({ kind: 'watch_sweep', role: 'scheduler' });
