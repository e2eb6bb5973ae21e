/**
 * Administering feeds: the listing (with groups, last sync and live progress), enabling and disabling feeds and
 * groups, deleting their data, and storing uploaded feed files for air-gapped deployments. Changes that alter
 * what matches queue a re-match of every analyzed image.
 */
import type { Readable } from 'node:stream';
import { toBool } from '../db/index.js';
import { InvalidError, NotFoundError } from '../errors.js';
import type { Services } from '../service.js';
import { deleteUpload, holdUpload, receiveUpload } from '../uploads/stored-uploads.js';
import { nowIso } from '../util/time.js';
import { defineJob } from '../jobs/definition.js';
import { allSources, displayLocation, parseStoredUploadLocation, requestFeedSync, storedUploadLocation } from './feeds.js';
import { refreshGroupCounts } from './feed-sync.js';
import { rematchImages } from './rematch.js';
import { markVulnerabilityDataChanged } from './vulnerability-repository.js';

/** Re-matches every analyzed image; one waiting re-match covers any number of requests. */
export const VULN_REMATCH_JOB = defineJob<{ scope: 'all' }>({
  kind: 'vuln_rematch',
  role: 'feeds',
  maxAttempts: 2,
  schema: { type: 'object', properties: { scope: { const: 'all' } }, required: ['scope'], additionalProperties: false },
  dedupKey: () => 'vuln_rematch:all',
});

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

/**
 * Upstream's feed names. Vigil's feeds are its sources (an OSV export, Alpine secdb, an NVD feed file, the KEV
 * catalog, EPSS scores); the API lists them under the dataset their data belongs to, one group per source: OSV,
 * Alpine secdb and NVD sources (and sources that have not synced yet, whose format is not known) in
 * `vulnerability_db` (upstream's vulnerability database holds NVD's data as its namespace `nvd`), KEV in `kev_db`,
 * EPSS in `epss_db`. A dataset is listed once one of its sources exists. A source's own groups, the namespaces its
 * records cover (`debian:12`, `pypi`), are its `namespaces`; addressed as a feed of its own
 * (`/system/feeds/{source}`), a source shows them as its groups, as before.
 */
export const FEED_DATASETS = ['vulnerability_db', 'kev_db', 'epss_db'] as const;
export type FeedDataset = (typeof FEED_DATASETS)[number];

function datasetOf(kind: string | null): FeedDataset {
  return kind === 'kev' ? 'kev_db' : kind === 'epss' ? 'epss_db' : 'vulnerability_db';
}

export function isDataset(name: string): name is FeedDataset {
  return (FEED_DATASETS as readonly string[]).includes(name);
}

/** Leaves absent values out: upstream's feed fields are strings when present, never null. */
function present<T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]: Exclude<T[K], null> };
}

function namespaceView(g: GroupRow, builtAt: string | null) {
  return {
    name: g.name,
    record_count: Number(g.record_count),
    enabled: toBool(g.enabled),
    created_at: g.created_at,
    ...present({ last_sync: g.last_sync, data_service_built_at: builtAt, enterprise_received_at: g.last_sync }),
  };
}

type Kind = 'osv' | 'alpine-secdb' | 'nvd' | 'kev' | 'epss';

/** Every source: synced ones from the database, configured ones that have not synced yet too. */
async function sourceRows(services: Services): Promise<{ rows: FeedRow[]; groups: GroupRow[]; configured: Set<string> }> {
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
  return { rows: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), groups, configured };
}

/** A source as a feed of its own: its namespaces are its groups. */
function sourceView(services: Services, r: FeedRow, groups: GroupRow[], configured: Set<string>) {
  const progress = services.feedProgress;
  return {
    name: r.name,
    kind: (r.kind as Kind | null) ?? null,
    source: r.source,
    configured: configured.has(r.name),
    ...present({ version: r.version }),
    dataset_name: r.name,
    ...present({
      dataset_checksum: r.checksum,
      data_service_built_at: r.built_at,
      enterprise_received_at: r.last_success_at,
    }),
    created_at: r.created_at,
    ...present({ updated_at: r.last_sync_at, last_full_sync: r.last_success_at }),
    last_sync_status: r.last_sync_status,
    last_sync_error: r.last_sync_error,
    last_sync_stats: r.last_sync_stats ? (JSON.parse(r.last_sync_stats) as Record<string, unknown>) : null,
    enabled: toBool(r.enabled),
    groups: groups.filter((g) => g.feed === r.name).map((g) => namespaceView(g, r.built_at)),
    ...(progress.running && progress.feed === r.name && progress.stage
      ? { sync_progress: { stage: progress.stage, ...(progress.records !== undefined ? { records: progress.records } : {}), ...(progress.startedAt ? { started_at: progress.startedAt } : {}) } }
      : {}),
  };
}

type SourceView = ReturnType<typeof sourceView>;

/** A source as a group of its dataset: its record count, last sync, and its namespaces. */
function sourceGroupView(v: SourceView) {
  const { groups, dataset_name: _d, updated_at, last_full_sync: _l, ...rest } = v;
  return { ...rest, record_count: groups.reduce((n, g) => n + g.record_count, 0), ...present({ last_sync: updated_at ?? null }), namespaces: groups };
}

const newest = (values: (string | null | undefined)[]) => values.filter((v): v is string => !!v).sort().pop() ?? null;

/**
 * What a dataset as a whole is: its version is the declared version of its data when a single source with data
 * declares one (an uploaded dataset), else the time its newest data was received; the checksum and build time
 * are given only by such a single uploaded source (several sources have no one file to sum up).
 */
function datasetState(sources: FeedRow[]) {
  const withData = sources.filter((r) => r.last_success_at);
  const single = withData.length === 1 && withData[0]!.version ? withData[0]! : undefined;
  return {
    version: single ? single.version : newest(withData.map((r) => r.last_success_at)),
    checksum: single ? single.checksum : null,
    builtAt: single ? single.built_at : newest(withData.map((r) => r.built_at)),
    receivedAt: newest(withData.map((r) => r.last_success_at)),
    createdAt: sources.map((r) => r.created_at).sort()[0]!,
    updatedAt: newest(sources.map((r) => r.last_sync_at)),
    // A full sync is complete when every source has synced: the oldest of their last successes.
    lastFullSync: sources.every((r) => r.last_success_at) ? sources.map((r) => r.last_success_at!).sort()[0]! : null,
    formats: [...new Set(sources.map((r) => r.kind).filter((k): k is string => !!k))].sort(),
  };
}

function datasetView(name: FeedDataset, sources: SourceView[], rows: FeedRow[]) {
  const state = datasetState(rows);
  const syncing = sources.find((s) => s.sync_progress);
  return {
    name,
    ...present({ version: state.version }),
    dataset_name: name,
    ...present({ dataset_checksum: state.checksum, data_service_built_at: state.builtAt, enterprise_received_at: state.receivedAt }),
    created_at: state.createdAt,
    ...present({ updated_at: state.updatedAt, last_full_sync: state.lastFullSync }),
    enabled: sources.some((s) => s.enabled),
    groups: sources.map(sourceGroupView),
    ...(syncing ? { sync_progress: syncing.sync_progress } : {}),
  };
}

async function datasets(services: Services) {
  const { rows, groups, configured } = await sourceRows(services);
  return FEED_DATASETS.map((name) => {
    const members = rows.filter((r) => datasetOf(r.kind) === name);
    return { name, rows: members, views: members.map((r) => sourceView(services, r, groups, configured)) };
  }).filter((d) => d.rows.length > 0);
}

/** GET /system/feeds: one entry per dataset that has a source, each source a group. */
export async function listFeeds(services: Services) {
  return (await datasets(services)).map((d) => datasetView(d.name, d.views, d.rows));
}

async function dataset(services: Services, name: FeedDataset) {
  const found = (await datasets(services)).find((d) => d.name === name);
  if (!found) throw new NotFoundError(`no feed '${name}': no source of this data is configured or uploaded`, { feed: name });
  return found;
}

async function feedRow(services: Services, name: string): Promise<FeedRow> {
  const row = await services.db('vuln_feeds').where({ name }).first();
  if (!row) throw new NotFoundError(`no feed '${name}'`, { feed: name });
  return row;
}

/** A dataset, or a source addressed by its own name. */
export async function getFeed(services: Services, name: string) {
  if (isDataset(name)) {
    const d = await dataset(services, name);
    return datasetView(d.name, d.views, d.rows);
  }
  await feedRow(services, name);
  const { rows, groups, configured } = await sourceRows(services);
  return sourceView(services, rows.find((r) => r.name === name)!, groups, configured);
}

export async function getFeedDataRecord(services: Services, name: string, version?: string) {
  const record = isDataset(name) ? await datasetRecord(services, name) : sourceRecord(await feedRow(services, name));
  if (version !== undefined && record.version !== version)
    throw new NotFoundError(`feed '${name}' has no dataset version '${version}'`, { feed: name, version, ...present({ current_version: record.version }) });
  return record;
}

function sourceRecord(row: FeedRow) {
  return {
    id: row.name,
    name: row.name,
    dataset: row.name,
    data_format: row.kind ?? 'unknown',
    ...present({
      checksum: row.checksum,
      version: row.version,
      data_service_built_at: row.built_at,
      enterprise_received_at: row.last_success_at,
    }),
    created_at: row.created_at,
    ...present({ updated_at: row.last_sync_at }),
  };
}

async function datasetRecord(services: Services, name: FeedDataset) {
  const state = datasetState((await dataset(services, name)).rows);
  return {
    id: name,
    name,
    dataset: name,
    data_format: state.formats.length ? state.formats.join('+') : 'unknown',
    ...present({
      checksum: state.checksum,
      version: state.version,
      data_service_built_at: state.builtAt,
      enterprise_received_at: state.receivedAt,
    }),
    created_at: state.createdAt,
    ...present({ updated_at: state.updatedAt }),
  };
}

/** Queues a re-match of every analyzed image (after what matches changed wholesale). */
export async function queueFullRematch(services: Services): Promise<void> {
  await services.jobs.enqueue(VULN_REMATCH_JOB, { scope: 'all' });
  services.worker.wake();
}

export function vulnRematchJob(services: Services) {
  return async (): Promise<void> => {
    const stats = await rematchImages(services.db, 'all');
    services.log.info({ rematch: stats }, 're-matched every analyzed image');
  };
}

/** Sets a source's flag; a configured source that has not synced yet gets its row, so the flag holds. */
async function setSourceEnabled(services: Services, name: string, enabled: boolean): Promise<boolean> {
  const row = await services.db('vuln_feeds').where({ name }).first('enabled');
  if (row && toBool(row.enabled) === enabled) return false;
  await services.db('vuln_feeds').insert({ name, enabled, created_at: nowIso() }).onConflict('name').merge(['enabled']);
  return true;
}

/** Enables or disables a dataset (every source of it) or one source; answers it as GET /system/feeds lists it. */
export async function setFeedEnabled(services: Services, name: string, enabled: boolean) {
  const names = isDataset(name) ? (await dataset(services, name)).rows.map((r) => r.name) : [(await feedRow(services, name)).name];
  let changed = false;
  for (const source of names) changed = (await setSourceEnabled(services, source, enabled)) || changed;
  if (changed) await queueFullRematch(services);
  return getFeed(services, name);
}

async function groupRow(services: Services, feed: string, group: string): Promise<GroupRow> {
  await feedRow(services, feed);
  const row = await services.db('vuln_feed_groups').where({ feed, name: group }).first();
  if (!row) throw new NotFoundError(`feed '${feed}' has no group '${group}'`, { feed, group });
  return row;
}

/** The source `group` of dataset `feed`. */
async function datasetSource(services: Services, feed: FeedDataset, group: string) {
  const d = await dataset(services, feed);
  const view = d.views.find((v) => v.name === group);
  if (!view) throw new NotFoundError(`feed '${feed}' has no group '${group}'`, { feed, group });
  return view;
}

/**
 * Enables or disables a group: a source of a dataset (`vulnerability_db/osv`), or a namespace of a source
 * (`osv/debian:12`).
 */
export async function setGroupEnabled(services: Services, feed: string, group: string, enabled: boolean) {
  if (isDataset(feed)) {
    await datasetSource(services, feed, group);
    if (await setSourceEnabled(services, group, enabled)) await queueFullRematch(services);
    return sourceGroupView(await datasetSource(services, feed, group));
  }
  const row = await groupRow(services, feed, group);
  if (toBool(row.enabled) !== enabled) {
    await services.db('vuln_feed_groups').where({ feed, name: group }).update({ enabled });
    await queueFullRematch(services);
  }
  const built = (await feedRow(services, feed)).built_at;
  return namespaceView((await services.db('vuln_feed_groups').where({ feed, name: group }).first()) as GroupRow, built);
}

/** Removes a source's data and disables it, so the next sync does not bring it back. */
async function deleteSource(services: Services, name: string): Promise<void> {
  await services.db.transaction(async (trx) => {
    await trx('vulnerability_affected').where({ feed: name }).delete();
    await trx('vulnerabilities').where({ feed: name }).delete();
    await trx('vuln_kev').where({ feed: name }).delete();
    await trx('vuln_epss').where({ feed: name }).delete();
    await trx('vuln_nvd').where({ feed: name }).delete();
    await trx('vuln_feed_groups').where({ feed: name }).delete();
    await trx('vuln_feeds').insert({ name, enabled: false, created_at: nowIso() }).onConflict('name').merge(['enabled']);
    await trx('vuln_feeds').where({ name }).update({ source_etag: null });
    await markVulnerabilityDataChanged(trx);
  });
}

/** Deletes a dataset's data (every source of it) or one source's, and disables what it deleted. */
export async function deleteFeed(services: Services, name: string): Promise<void> {
  const names = isDataset(name) ? (await dataset(services, name)).rows.map((r) => r.name) : [(await feedRow(services, name)).name];
  for (const source of names) await deleteSource(services, source);
  await queueFullRematch(services);
}

/**
 * Deletes a group: a source of a dataset (as DELETE of the source), or one namespace of a source. A namespace's
 * index entries are removed and the namespace disabled; its records' digests are cleared so that a later sync, once
 * the namespace is enabled again, stores them in full.
 */
export async function deleteGroup(services: Services, feed: string, group: string): Promise<void> {
  if (isDataset(feed)) {
    await datasetSource(services, feed, group);
    await deleteSource(services, group);
    await queueFullRematch(services);
    return;
  }
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
    await markVulnerabilityDataChanged(trx);
  });
  await queueFullRematch(services);
}

/** A file name the format detector recognises, from the part's name or the first bytes. */
function detectableName(head: Buffer, given: string | undefined): string {
  const safe = given?.replace(/^.*[\\/]/, '').replace(/[^A-Za-z0-9._-]/g, '_');
  if (safe && /\.(zip|json|ya?ml|csv|gz)$/i.test(safe)) return safe;
  const text = head.toString('latin1');
  if (text.startsWith('PK\u0003\u0004')) return 'feed.zip';
  // EPSS or NVD: the detector looks inside.
  if (text.startsWith('\u001f\u008b')) return 'feed.gz';
  if (/^\s*[[{]/.test(text)) return 'feed.json';
  if (/^(---|distroversion:|\s*#|\S+:)/.test(text) && !/^#model_version|^cve,/.test(text)) return 'feed.yaml';
  return 'feed.csv';
}

export interface FeedUpload {
  version: string;
  built: string;
  checksum: string;
  body: Readable;
  fileName?: string;
}

/**
 * Stores an uploaded feed file (in the database, where a sync on any node reads it) after checking its sha256,
 * records it as the feed's source and queues a sync of that feed. A wrong checksum or an empty or oversized body
 * keeps nothing; the feed's previous upload, if any, is deleted.
 */
export async function storeFeedUpload(services: Services, feed: string, upload: FeedUpload): Promise<void> {
  const received = await receiveUpload(services.db, upload.body, {
    purpose: 'feed',
    limitBytes: services.config.analysis.maxUploadBytes,
    emptyMessage: 'the upload is empty: send the feed file as the body or as a multipart file part',
    hash: true,
  });
  const expected = upload.checksum.replace(/^sha256:/i, '').toLowerCase();
  if (received.sha256 !== expected) {
    await deleteUpload(services.db, received.id);
    throw new InvalidError(`checksum mismatch: the upload's sha256 is ${received.sha256}, not ${expected}`, { field: 'checksum', actual: received.sha256 });
  }
  const location = storedUploadLocation(received.id, detectableName(received.head, upload.fileName));
  const previous = await services.db('vuln_feeds').where({ name: feed }).first('source');
  await holdUpload(services.db, received.id, { feed });
  await services.db('vuln_feeds').insert({ name: feed, enabled: true, created_at: nowIso() }).onConflict('name').ignore();
  await services.db('vuln_feeds').where({ name: feed }).update({ source: location, version: upload.version, built_at: new Date(upload.built).toISOString(), checksum: `sha256:${received.sha256}`, source_etag: null });
  const replaced = previous?.source ? parseStoredUploadLocation(previous.source) : null;
  if (replaced) await deleteUpload(services.db, replaced.id);
  await requestFeedSync(services, { feeds: [feed], trigger: 'upload' });
}
