/**
 * Administering feeds: the listing (with groups, last sync and live progress), enabling and disabling feeds and
 * groups, deleting their data, and storing uploaded feed files for air-gapped deployments. Changes that alter
 * what matches queue a re-match of every analyzed image.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { toBool } from '../db/index.js';
import { AppError, InvalidError, NotFoundError } from '../errors.js';
import { UploadTooLargeError } from '../images/uploads.js';
import type { Services } from '../service.js';
import { nowIso } from '../util/time.js';
import { allSources, displayLocation, requestFeedSync } from './feeds.js';
import { refreshGroupCounts } from './feed-sync.js';
import { rematchImages } from './rematch.js';

export const VULN_REMATCH_JOB = 'vuln_rematch';

interface FeedRow {
  name: string;
  kind: string | null;
  source: string | null;
  version: string | null;
  built_at: string | null;
  checksum: string | null;
  enabled: unknown;
  created_at: string;
  last_sync_at: string | null;
  last_success_at: string | null;
  last_sync_status: 'ok' | 'failed' | null;
  last_sync_error: string | null;
  last_sync_stats: string | null;
}

interface GroupRow {
  feed: string;
  name: string;
  enabled: unknown;
  record_count: number;
  created_at: string;
  last_sync: string | null;
}

function groupView(g: GroupRow, builtAt: string | null) {
  return {
    name: g.name,
    record_count: Number(g.record_count),
    enabled: toBool(g.enabled),
    created_at: g.created_at,
    last_sync: g.last_sync,
    data_service_built_at: builtAt,
    enterprise_received_at: g.last_sync,
  };
}

export async function listFeeds(services: Services) {
  const { db } = services;
  const sources = await allSources(services);
  const rows: FeedRow[] = await db('vuln_feeds').orderBy('name').select('*');
  const groups: GroupRow[] = await db('vuln_feed_groups').orderBy(['feed', 'name']).select('*');
  const byName = new Map(rows.map((r) => [r.name, r]));
  // Configured sources that have not synced yet are listed too, so an operator sees what is coming.
  for (const s of sources)
    if (!byName.has(s.name))
      byName.set(s.name, {
        name: s.name, kind: null, source: displayLocation(s.location), version: null, built_at: null, checksum: null, enabled: true,
        created_at: services.startedAt, last_sync_at: null, last_success_at: null, last_sync_status: null, last_sync_error: null, last_sync_stats: null,
      });
  const configured = new Set(sources.filter((s) => s.origin === 'configured').map((s) => s.name));
  const progress = services.feedProgress;
  return [...byName.values()]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((r) => ({
      name: r.name,
      kind: (r.kind as 'osv' | 'alpine-secdb' | 'kev' | 'epss' | null) ?? null,
      source: r.source,
      configured: configured.has(r.name),
      version: r.version,
      dataset_name: r.name,
      dataset_checksum: r.checksum,
      data_service_built_at: r.built_at,
      enterprise_received_at: r.last_success_at,
      created_at: r.created_at,
      updated_at: r.last_sync_at,
      last_full_sync: r.last_success_at,
      last_sync_status: r.last_sync_status,
      last_sync_error: r.last_sync_error,
      last_sync_stats: r.last_sync_stats ? (JSON.parse(r.last_sync_stats) as Record<string, unknown>) : null,
      enabled: toBool(r.enabled),
      groups: groups.filter((g) => g.feed === r.name).map((g) => groupView(g, r.built_at)),
      ...(progress.running && progress.feed === r.name && progress.stage
        ? { sync_progress: { stage: progress.stage, ...(progress.records !== undefined ? { records: progress.records } : {}), ...(progress.startedAt ? { started_at: progress.startedAt } : {}) } }
        : {}),
    }));
}

async function feedRow(services: Services, name: string): Promise<FeedRow> {
  const row = await services.db('vuln_feeds').where({ name }).first();
  if (!row) throw new NotFoundError(`no feed '${name}'`, { feed: name });
  return row;
}

export async function getFeed(services: Services, name: string) {
  await feedRow(services, name);
  return (await listFeeds(services)).find((f) => f.name === name)!;
}

export async function getFeedDataRecord(services: Services, name: string, version?: string) {
  const row = await feedRow(services, name);
  if (version !== undefined && row.version !== version)
    throw new NotFoundError(`feed '${name}' has no dataset version '${version}'`, { feed: name, version, current_version: row.version });
  return {
    id: row.name,
    name: row.name,
    dataset: row.name,
    data_format: row.kind ?? 'unknown',
    checksum: row.checksum,
    version: row.version,
    data_service_built_at: row.built_at,
    enterprise_received_at: row.last_success_at,
    created_at: row.created_at,
    updated_at: row.last_sync_at,
  };
}

/** Queues a re-match of every analyzed image (after what matches changed wholesale). */
export async function queueFullRematch(services: Services): Promise<void> {
  await services.jobs.enqueue(VULN_REMATCH_JOB, { scope: 'all' }, { maxAttempts: 2 });
  services.worker.wake();
}

export function vulnRematchJob(services: Services) {
  return async (): Promise<void> => {
    const stats = await rematchImages(services.db, 'all');
    services.log.info({ rematch: stats }, 're-matched every analyzed image');
  };
}

export async function setFeedEnabled(services: Services, name: string, enabled: boolean) {
  const row = await feedRow(services, name);
  if (toBool(row.enabled) !== enabled) {
    await services.db('vuln_feeds').where({ name }).update({ enabled });
    await queueFullRematch(services);
  }
  return getFeed(services, name);
}

async function groupRow(services: Services, feed: string, group: string): Promise<GroupRow> {
  await feedRow(services, feed);
  const row = await services.db('vuln_feed_groups').where({ feed, name: group }).first();
  if (!row) throw new NotFoundError(`feed '${feed}' has no group '${group}'`, { feed, group });
  return row;
}

export async function setGroupEnabled(services: Services, feed: string, group: string, enabled: boolean) {
  const row = await groupRow(services, feed, group);
  if (toBool(row.enabled) !== enabled) {
    await services.db('vuln_feed_groups').where({ feed, name: group }).update({ enabled });
    await queueFullRematch(services);
  }
  const built = (await feedRow(services, feed)).built_at;
  return groupView((await services.db('vuln_feed_groups').where({ feed, name: group }).first()) as GroupRow, built);
}

/** Removes a feed's data and disables it, so the next sync does not bring it back. */
export async function deleteFeed(services: Services, name: string): Promise<void> {
  await feedRow(services, name);
  await services.db.transaction(async (trx) => {
    await trx('vulnerability_affected').where({ feed: name }).delete();
    await trx('vulnerabilities').where({ feed: name }).delete();
    await trx('vuln_kev').where({ feed: name }).delete();
    await trx('vuln_epss').where({ feed: name }).delete();
    await trx('vuln_feed_groups').where({ feed: name }).delete();
    await trx('vuln_feeds').where({ name }).update({ enabled: false, source_etag: null });
  });
  await queueFullRematch(services);
}

/**
 * Removes one group's index entries and disables the group. Its records' digests are cleared so that a later
 * sync, once the group is enabled again, stores them in full.
 */
export async function deleteGroup(services: Services, feed: string, group: string): Promise<void> {
  await groupRow(services, feed, group);
  await services.db.transaction(async (trx) => {
    const ids = (await trx('vulnerability_affected').where({ feed, grp: group }).distinct('vuln_id')).map((r: { vuln_id: string }) => r.vuln_id);
    await trx('vulnerability_affected').where({ feed, grp: group }).delete();
    for (let i = 0; i < ids.length; i += 400) await trx('vulnerabilities').where({ feed }).whereIn('id', ids.slice(i, i + 400)).update({ content_digest: '' });
    await refreshGroupCounts(trx, feed);
    await trx('vuln_feed_groups')
      .insert({ feed, name: group, enabled: false, record_count: 0, created_at: nowIso() })
      .onConflict(['feed', 'name'])
      .merge(['enabled', 'record_count']);
    await trx('vuln_feeds').where({ name: feed }).update({ source_etag: null });
  });
  await queueFullRematch(services);
}

/** A file name the format detector recognises, from the part's name or the first bytes. */
async function detectableName(path: string, given: string | undefined): Promise<string> {
  const safe = given?.replace(/^.*[\\/]/, '').replace(/[^A-Za-z0-9._-]/g, '_');
  if (safe && /\.(zip|json|ya?ml|csv|gz)$/i.test(safe)) return safe;
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await handle.read(head, 0, 64, 0);
    const text = head.subarray(0, bytesRead).toString('latin1');
    if (text.startsWith('PK\u0003\u0004')) return 'feed.zip';
    if (text.startsWith('\u001f\u008b')) return 'feed.csv.gz';
    if (/^\s*[[{]/.test(text)) return 'feed.json';
    if (/^(---|distroversion:|\s*#|\S+:)/.test(text) && !/^#model_version|^cve,/.test(text)) return 'feed.yaml';
    return 'feed.csv';
  } finally {
    await handle.close();
  }
}

export interface FeedUpload {
  version: string;
  built: string;
  checksum: string;
  body: Readable;
  fileName?: string;
}

/**
 * Stores an uploaded feed file after checking its sha256, records it as the feed's source and queues a sync of
 * that feed. A wrong checksum or an empty or oversized body keeps nothing.
 */
export async function storeFeedUpload(services: Services, feed: string, upload: FeedUpload): Promise<void> {
  const dir = join(services.config.dataDir, 'feeds', 'uploads', feed);
  mkdirSync(dir, { recursive: true });
  const partial = join(dir, `.upload-${process.pid}-${Date.now()}`);
  const hash = createHash('sha256');
  let size = 0;
  const limit = services.config.analysis.maxUploadBytes;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) return done(new UploadTooLargeError(limit));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(upload.body, meter, createWriteStream(partial, { mode: 0o600 }));
    if (size === 0) throw new InvalidError('the upload is empty: send the feed file as the body or as a multipart file part');
    const actual = hash.digest('hex');
    const expected = upload.checksum.replace(/^sha256:/i, '').toLowerCase();
    if (actual !== expected) throw new InvalidError(`checksum mismatch: the upload's sha256 is ${actual}, not ${expected}`, { field: 'checksum', actual });
    const final = join(dir, await detectableName(partial, upload.fileName));
    await rename(partial, final);
    await services.db('vuln_feeds').insert({ name: feed, enabled: true, created_at: nowIso() }).onConflict('name').ignore();
    await services.db('vuln_feeds').where({ name: feed }).update({ source: final, version: upload.version, built_at: new Date(upload.built).toISOString(), checksum: `sha256:${actual}`, source_etag: null });
  } catch (err) {
    await rm(partial, { force: true });
    if (err instanceof AppError) throw err;
    throw new InvalidError(`the upload could not be read: ${(err as Error).message}`);
  }
  await requestFeedSync(services, { feeds: [feed], trigger: 'upload' });
}
