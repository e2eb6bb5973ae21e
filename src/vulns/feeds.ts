/**
 * Feed synchronisation as the service runs it: which sources there are (configured paths and URLs, plus files an
 * administrator uploaded), one sync job at a time through the job queue (at start-up, on the cron schedule, on
 * demand), download with ETag, format detection, import, and then re-matching of the images the changes touch.
 * A failing source is recorded on its feed and the others carry on; its previous data keeps serving.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_ACCOUNT } from '../auth/accounts.js';
import type { FeedSourceConfig } from '../config.js';
import { toBool } from '../db/index.js';
import { recordEvent } from '../events/events.js';
import type { Job } from '../jobs/queue.js';
import type { JobContext } from '../jobs/worker.js';
import { defineJob } from '../jobs/definition.js';
import { definePeriodicJob } from '../jobs/periodic.js';
import type { Services } from '../service.js';
import { copyUploadToTempFile } from '../uploads/stored-uploads.js';
import { nowIso } from '../util/time.js';
import { syncEpssSource, syncKevSource, syncNvdSource } from './enrichment-sync.js';
import { syncFeedRecords, syncOsvSource, type SwitchHook, type SyncStats } from './feed-sync.js';
import { rematchQueuedKeys, type RematchStats } from './rematch.js';
import { readAlpineSecdbPath } from './sources/alpine-secdb.js';
import { detectFeedKind, feedNameFromLocation, type FeedKind } from './sources/detect.js';
import { fetchFeedSource } from './sources/fetch.js';


/**
 * What a sync tells the rest of Vigil. Feeds know nothing of policy: the composition (jobs/registry.ts) turns
 * `imagesChanged` into re-evaluation jobs, so policy results follow the changed findings.
 */
export interface FeedSyncHooks {
  /** Images of one account whose findings the re-match changed (at most IMAGES_PER_CHANGE_BATCH at a time). */
  imagesChanged(accountName: string, imageDigests: string[]): Promise<void>;
}

export const IMAGES_PER_CHANGE_BATCH = 500;

/** Collects changed images per account and hands them on in batches (a feed sync's re-match, a correction's). */
export function changeBatcher(hooks: FeedSyncHooks) {
  const pending = new Map<string, string[]>();
  const flush = async (account: string) => {
    const digests = pending.get(account);
    pending.delete(account);
    if (digests?.length) await hooks.imagesChanged(account, digests);
  };
  return {
    async add(account: string, digest: string): Promise<void> {
      const digests = pending.get(account) ?? [];
      digests.push(digest);
      pending.set(account, digests);
      if (digests.length >= IMAGES_PER_CHANGE_BATCH) await flush(account);
    },
    async flushAll(): Promise<void> {
      for (const account of [...pending.keys()]) await flush(account);
    },
  };
}

export interface FeedSyncPayload {
  /** Only these feeds; all sources when absent. */
  feeds?: string[];
  /** Download even when the server says the file has not changed. */
  force?: boolean;
  trigger: 'startup' | 'schedule' | 'api' | 'upload';
}

/** A sync of the same feeds (and force flag) already waiting absorbs a new request, whatever its trigger. */
export const FEED_SYNC_JOB = defineJob<FeedSyncPayload>({
  kind: 'feed_sync',
  role: 'feeds',
  maxAttempts: 2,
  schema: {
    type: 'object',
    properties: {
      feeds: { type: 'array', items: { type: 'string', minLength: 1 } },
      force: { type: 'boolean' },
      trigger: { enum: ['startup', 'schedule', 'api', 'upload'] },
    },
    required: ['trigger'],
    additionalProperties: false,
  },
  dedupKey: (p) => `feed_sync:${JSON.stringify({ feeds: p.feeds ?? null, force: p.force ?? false })}`,
});

export interface FeedSource {
  name: string;
  /** A local path or an http(s) URL. */
  location: string;
  origin: 'configured' | 'uploaded';
}

/** What a running sync is doing, for GET /v2/system/feeds (this process only). */
export interface FeedSyncProgress {
  running: boolean;
  startedAt?: string;
  feed?: string;
  stage?: 'downloading' | 'importing' | 'rematching';
  records?: number;
  images?: number;
  /** The outcome of the last sync job this process ran. */
  lastResult?: { jobId: number; summary: FeedSyncSummary };
}

export type FeedOutcome =
  | { feed: string; status: 'ok'; kind: FeedKind; stats: unknown }
  | { feed: string; status: 'not_modified' | 'disabled' }
  | { feed: string; status: 'failed'; error: string };

export interface FeedSyncSummary {
  feeds: FeedOutcome[];
  rematch: RematchStats;
}

/** A URL as it may be shown and stored: without user info, which could hold credentials. */
export function displayLocation(location: string): string {
  if (!/^https?:\/\//i.test(location)) return location;
  const url = new URL(location);
  url.username = '';
  url.password = '';
  return url.toString();
}

export function configuredSources(sources: FeedSourceConfig[]): FeedSource[] {
  return sources.map((s) => ({ name: s.name ?? feedNameFromLocation(s.location), location: s.location, origin: 'configured' }));
}

/** Configured sources, then feeds whose data came from an upload (they have a version and no configured source). */
export async function allSources(services: Services): Promise<FeedSource[]> {
  const configured = configuredSources(services.config.feeds.sources);
  const names = new Set(configured.map((s) => s.name));
  const uploaded: { name: string; source: string }[] = await services.db('vuln_feeds').whereNotNull('version').whereNotNull('source').select('name', 'source');
  return [...configured, ...uploaded.filter((u) => !names.has(u.name)).map((u) => ({ name: u.name, location: u.source, origin: 'uploaded' as const }))];
}

/** Queues a sync unless an identical one is already waiting; answers the job id. */
export async function requestFeedSync(services: Services, payload: FeedSyncPayload): Promise<number> {
  const id = await services.jobs.enqueue(FEED_SYNC_JOB, payload);
  services.worker.wake();
  return id;
}

const STORED_UPLOAD = 'stored-upload:';

/** The source location recorded for a feed file uploaded into the database: `stored-upload:<id>/<file name>`. */
export function storedUploadLocation(id: string, fileName: string): string {
  return `${STORED_UPLOAD}${id}/${fileName}`;
}

export function parseStoredUploadLocation(location: string): { id: string; fileName: string } | null {
  if (!location.startsWith(STORED_UPLOAD)) return null;
  const [id, fileName] = location.slice(STORED_UPLOAD.length).split('/', 2);
  return id && fileName ? { id, fileName } : null;
}

/**
 * A local file of the source: a path as configured, an uploaded file copied from the database to a temp file
 * (`remove` deletes it after the import), or a download. Downloads are a per-node cache of their URL under
 * `<data dir>/feeds/downloads`: each node that syncs fetches for itself, with the ETag the database holds.
 */
async function localCopy(services: Services, source: FeedSource, force: boolean, signal: AbortSignal): Promise<{ path: string; etag?: string; remove?(): Promise<void> } | 'not_modified'> {
  const stored = parseStoredUploadLocation(source.location);
  if (stored) return copyUploadToTempFile(services.db, stored.id, stored.fileName);
  if (!/^https?:\/\//i.test(source.location)) return { path: source.location };
  const row = await services.db('vuln_feeds').where({ name: source.name }).first('source_etag', 'source');
  const sameUrl = row?.source === displayLocation(source.location);
  const destDir = join(services.config.dataDir, 'feeds', 'downloads', source.name);
  mkdirSync(destDir, { recursive: true });
  const fetched = await fetchFeedSource(source.location, {
    policy: services.outbound.feeds,
    destDir,
    etag: !force && sameUrl ? (row?.source_etag ?? undefined) : undefined,
    maxBytes: services.config.feeds.maxDownloadBytes,
    timeoutMs: services.config.feeds.downloadTimeoutMs,
    signal,
    userAgent: `Vigil/${services.version}`,
  });
  if (fetched.notModified) return 'not_modified';
  return { path: fetched.path, etag: fetched.etag };
}

/** Imports a downloaded source; `onSwitch` runs in the transaction that makes its data live. */
async function importSource(
  services: Services,
  name: string,
  kind: FeedKind,
  path: string,
  location: string,
  progress: FeedSyncProgress,
  onSwitch: SwitchHook<unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const onProgress = (s: Readonly<SyncStats>) => {
    progress.records = s.read;
    services.log.info({ feed: name, ...s, errors: undefined }, 'feed sync progress');
  };
  const options = { source: location, kind, onProgress, progressEvery: 20_000, onSwitch, signal };
  switch (kind) {
    case 'osv':
      return (await syncOsvSource(services.db, name, path, { ...options, read: { maxRecordBytes: services.config.feeds.maxRecordBytes } })).stats;
    case 'alpine-secdb':
      return (await syncFeedRecords(services.db, name, readAlpineSecdbPath(path), options)).stats;
    case 'kev':
      return syncKevSource(services.db, name, path, location, onSwitch);
    case 'epss':
      return syncEpssSource(services.db, name, path, location, onSwitch);
    case 'nvd':
      return syncNvdSource(services.db, name, path, services.config.feeds.maxRecordBytes, location, onSwitch);
  }
}

/** Detects the local copy's format and imports it. */
async function importCopy(
  services: Services,
  source: FeedSource,
  copy: { path: string; etag?: string },
  location: string,
  progress: FeedSyncProgress,
  signal: AbortSignal,
): Promise<FeedOutcome> {
  const kind = await detectFeedKind(copy.path);
  // What must hold exactly when the new data does: the ETag it came with and the completion event. A failure
  // here rolls the whole switch back, leaving the previous data (and ETag) in place.
  const onSwitch: SwitchHook<unknown> = async (trx, stats) => {
    if (copy.etag !== undefined || /^https?:/i.test(source.location)) await trx('vuln_feeds').where({ name: source.name }).update({ source_etag: copy.etag ?? null });
    await recordEvent(trx, {
      accountName: ADMIN_ACCOUNT,
      type: 'system.feeds.sync.feed_completed',
      resourceType: 'feed',
      resourceId: source.name,
      details: { kind, location, stats },
    });
  };
  const stats = await importSource(services, source.name, kind, copy.path, location, progress, onSwitch, signal);
  return { feed: source.name, status: 'ok', kind, stats };
}

async function syncOne(services: Services, source: FeedSource, force: boolean, signal: AbortSignal, progress: FeedSyncProgress): Promise<FeedOutcome> {
  const { db } = services;
  const row = await db('vuln_feeds').where({ name: source.name }).first('enabled');
  if (row && !toBool(row.enabled)) return { feed: source.name, status: 'disabled' };
  const location = displayLocation(source.location);
  try {
    progress.stage = 'downloading';
    const copy = await localCopy(services, source, force, signal);
    if (copy === 'not_modified') {
      await db('vuln_feeds').where({ name: source.name }).update({ last_sync_at: nowIso(), last_sync_status: 'ok', last_sync_error: null });
      return { feed: source.name, status: 'not_modified' };
    }
    progress.stage = 'importing';
    try {
      return await importCopy(services, source, copy, location, progress, signal);
    } finally {
      await copy.remove?.();
    }
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    services.log.error({ feed: source.name, location, err }, 'feed sync failed; the previous data stays in use');
    // The importers record their own failures; failures before import (download, detection) are recorded here.
    await db('vuln_feeds')
      .insert({ name: source.name, enabled: true, created_at: nowIso() })
      .onConflict('name')
      .ignore();
    await db('vuln_feeds').where({ name: source.name }).update({ last_sync_at: nowIso(), last_sync_status: 'failed', last_sync_error: error, source: location });
    await recordEvent(db, { accountName: ADMIN_ACCOUNT, type: 'system.feeds.sync.feed_failed', resourceType: 'feed', resourceId: source.name, details: { location, error } });
    return { feed: source.name, status: 'failed', error };
  }
}

/**
 * Runs one sync over the sources (all, or those named), then re-matches what changed: the keys every switched
 * feed queued, plus any a failed or interrupted earlier re-match left queued.
 */
export async function runFeedSync(services: Services, payload: FeedSyncPayload, signal: AbortSignal, progress: FeedSyncProgress, hooks: FeedSyncHooks): Promise<FeedSyncSummary> {
  const sources = (await allSources(services)).filter((s) => !payload.feeds || payload.feeds.includes(s.name));
  Object.assign(progress, { running: true, startedAt: nowIso(), feed: undefined, stage: undefined, records: undefined, images: undefined });
  const finished = (failed: boolean, details: Record<string, unknown>) =>
    recordEvent(services.db, { accountName: ADMIN_ACCOUNT, type: failed ? 'system.feeds.sync.failed' : 'system.feeds.sync.completed', resourceType: 'feeds', resourceId: 'feeds', details });
  try {
    await recordEvent(services.db, { accountName: ADMIN_ACCOUNT, type: 'system.feeds.sync.started', resourceType: 'feeds', resourceId: 'feeds', details: { feeds: sources.map((s) => s.name), trigger: payload.trigger } });
    const feeds: FeedOutcome[] = [];
    for (const source of sources) {
      if (signal.aborted) break;
      progress.feed = source.name;
      progress.records = 0;
      feeds.push(await syncOne(services, source, payload.force ?? false, signal, progress));
    }
    progress.stage = 'rematching';
    progress.feed = undefined;
    let rematch: RematchStats;
    const changed = changeBatcher(hooks);
    try {
      rematch = await rematchQueuedKeys(services.db, {
        onProgress: (s) => (progress.images = s.images),
        onImageChanged: (account, digest) => changed.add(account, digest),
      });
      await changed.flushAll();
    } catch (err) {
      // The keys stay queued: the job's retry, or the next sync, re-matches them.
      const error = err instanceof Error ? err.message : String(err);
      services.log.error({ err }, 're-matching after the feed sync failed; it is retried with the next sync');
      await finished(true, { feeds, rematch_error: error });
      throw err;
    }
    const failed = feeds.filter((f) => f.status === 'failed');
    await finished(failed.length > 0, { feeds, rematch });
    services.log.info({ feeds: feeds.map((f) => `${f.feed}:${f.status}`), rematch }, 'feed sync finished');
    return { feeds, rematch };
  } finally {
    Object.assign(progress, { running: false, feed: undefined, stage: undefined });
  }
}

/** Syncs in this process run one after another: two syncs of one feed would race on its staging rows. */
let syncChain: Promise<unknown> = Promise.resolve();

/** Another process's sync that holds a live lease (several nodes share one queue on Postgres). */
async function syncRunningElsewhere(services: Services, jobId: number): Promise<boolean> {
  const other = await services.db('jobs')
    .where({ kind: FEED_SYNC_JOB.kind, status: 'running' })
    .whereNot({ id: jobId })
    .where('locked_until', '>', nowIso())
    .whereNot('locked_by', services.worker.workerId)
    .first('id');
  return !!other;
}

export function feedSyncJob(services: Services, progress: FeedSyncProgress, hooks: FeedSyncHooks) {
  return (payload: FeedSyncPayload, job: Job, context: JobContext): Promise<void> => {
    const run = syncChain.then(async () => {
      if (await syncRunningElsewhere(services, job.id)) throw new Error('another node is syncing the feeds; retrying later');
      const summary = await runFeedSync(services, payload, context.signal, progress, hooks);
      progress.lastResult = { jobId: job.id, summary };
    });
    syncChain = run.catch(() => undefined);
    return run;
  };
}

/** The feed sync schedule (the feeds.sync_schedule runtime setting, default VIGIL_FEED_SYNC_SCHEDULE): each slot queues one sync of every source, run by a feeds node. */
export const FEED_SYNC_SCHEDULE_JOB = definePeriodicJob({ kind: 'feed_sync_schedule', role: 'scheduler' });
