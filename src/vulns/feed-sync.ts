/**
 * Feed synchronisation: read OSV records from a source (all.zip, directory or file) and store the ones that are
 * new or whose `modified` changed, with their affected-package index. The whole sync is one transaction: a source
 * that fails part-way (truncated archive, unreadable path) leaves the previous data exactly as it was, and readers
 * keep seeing it throughout. Malformed records are skipped and counted, never fatal.
 */
import { gzipSync } from 'node:zlib';
import type { Db } from '../db/index.js';
import { nowIso } from '../util/time.js';
import { readOsvPath, type OsvReadError } from './osv/archive.js';
import type { OsvRecord } from './osv/types.js';
import { normalizePackageName } from './package-names.js';

export interface SyncStats {
  read: number;
  skipped: number;
  inserted: number;
  updated: number;
  unchanged: number;
  errors: OsvReadError[];
}

export interface SyncOptions {
  /** Called every `progressEvery` records with the running counts. */
  onProgress?: (stats: Readonly<SyncStats>) => void;
  progressEvery?: number;
}

const BATCH = 500;

function vulnerabilityRow(feed: string, r: OsvRecord, now: string) {
  return {
    id: r.id,
    feed,
    modified: r.modified,
    published: r.published ?? null,
    withdrawn: r.withdrawn ?? null,
    summary: r.summary ?? null,
    severity_label: r.severityLabel ?? null,
    severity: JSON.stringify(r.severity),
    aliases: JSON.stringify(r.aliases),
    record: gzipSync(JSON.stringify(r)),
    updated_at: now,
  };
}

function affectedRows(r: OsvRecord) {
  return r.affected
    .filter((a) => a.package)
    .map((a) => {
      const ecosystem = a.package!.ecosystem.ecosystem.toLowerCase();
      return {
        vuln_id: r.id,
        ecosystem,
        release: a.package!.ecosystem.release ?? null,
        package_name: normalizePackageName(ecosystem, a.package!.name),
        affected: JSON.stringify(a),
      };
    });
}

async function flush(trx: Db, feed: string, batch: OsvRecord[], isNew: Set<string>): Promise<void> {
  if (batch.length === 0) return;
  const now = nowIso();
  const ids = batch.map((r) => r.id);
  const existing = ids.filter((id) => !isNew.has(id));
  if (existing.length) {
    await trx('vulnerability_affected').whereIn('vuln_id', existing).delete();
    await trx('vulnerabilities').whereIn('id', existing).delete();
  }
  await trx('vulnerabilities').insert(batch.map((r) => vulnerabilityRow(feed, r, now)));
  const affected = batch.flatMap(affectedRows);
  for (let i = 0; i < affected.length; i += BATCH) await trx('vulnerability_affected').insert(affected.slice(i, i + BATCH));
}

async function recordSyncOutcome(db: Db, feed: string, status: 'ok' | 'failed', stats: SyncStats, error?: string): Promise<void> {
  await db('vuln_feeds')
    .where({ name: feed })
    .update({ last_sync_at: nowIso(), last_sync_status: status, last_sync_error: error ?? null, last_sync_stats: JSON.stringify(stats) });
}

export async function syncOsvSource(db: Db, feed: string, source: string, options: SyncOptions = {}): Promise<SyncStats> {
  await db('vuln_feeds').insert({ name: feed, enabled: true }).onConflict('name').ignore();
  const stats: SyncStats = { read: 0, skipped: 0, inserted: 0, updated: 0, unchanged: 0, errors: [] };
  const every = options.progressEvery ?? 10_000;
  try {
    await db.transaction(async (trx) => {
      const known = new Map<string, string>(
        (await trx('vulnerabilities').where({ feed }).select('id', 'modified')).map((r: { id: string; modified: string }) => [r.id, r.modified]),
      );
      const input = readOsvPath(source);
      // Keyed by id: a source that lists one id twice stores its last copy once.
      let batch = new Map<string, OsvRecord>();
      const isNew = new Set<string>();
      for await (const record of input.records) {
        stats.read++;
        const before = known.get(record.id);
        if (before === record.modified) stats.unchanged++;
        else {
          if (before === undefined) {
            stats.inserted++;
            isNew.add(record.id);
          } else stats.updated++;
          known.set(record.id, record.modified);
          batch.set(record.id, record);
          if (batch.size >= BATCH) {
            await flush(trx, feed, [...batch.values()], isNew);
            batch = new Map();
            isNew.clear();
          }
        }
        if (options.onProgress && stats.read % every === 0) options.onProgress({ ...stats, skipped: input.stats.skipped });
      }
      await flush(trx, feed, [...batch.values()], isNew);
      stats.skipped = input.stats.skipped;
      stats.errors = input.stats.errors;
    });
  } catch (err) {
    await recordSyncOutcome(db, feed, 'failed', stats, err instanceof Error ? err.message : String(err));
    throw err;
  }
  await recordSyncOutcome(db, feed, 'ok', stats);
  return stats;
}

/** Record counts per group (`debian:12`, `pypi`, ...), as feed listings show them. */
export async function feedGroupCounts(db: Db, feed: string): Promise<{ group: string; records: number }[]> {
  const rows = await db('vulnerability_affected as a')
    .join('vulnerabilities as v', 'v.id', 'a.vuln_id')
    .where('v.feed', feed)
    .groupBy('a.ecosystem', 'a.release')
    .select('a.ecosystem', 'a.release')
    .countDistinct({ n: 'a.vuln_id' })
    .orderBy(['a.ecosystem', 'a.release']);
  return rows.map((r: any) => ({ group: r.release ? `${r.ecosystem}:${r.release}` : r.ecosystem, records: Number(r.n) }));
}
