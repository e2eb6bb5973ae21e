/**
 * KEV, EPSS and NVD's CVSS: per-CVE facts that enrich findings rather than create them. Each source replaces its feed's rows
 * in one transaction (both publish complete snapshots), so readers see the old set or the new one, never a mix; the
 * sync's outcome and the caller's switch work commit in that same transaction.
 * They never change which packages match, so no re-matching follows.
 */
import type { Db } from '../db/index.js';
import { readEpssCsv } from './sources/epss.js';
import { readKevFile } from './sources/kev.js';
import { readNvdFeed } from './sources/nvd.js';
import { ensureFeed, recordSyncOutcome, type SwitchHook } from './feed-sync.js';
import { nowIso } from '../util/time.js';

export interface EnrichmentStats {
  read: number;
  skipped: number;
  stored: number;
  errors: { source: string; message: string }[];
}

const BATCH = 500;

async function setSingleGroup(db: Db, feed: string, group: string, count: number): Promise<void> {
  const now = nowIso();
  await db('vuln_feed_groups').where({ feed }).whereNot({ name: group }).delete();
  await db('vuln_feed_groups')
    .insert({ feed, name: group, enabled: true, record_count: count, created_at: now, last_sync: now })
    .onConflict(['feed', 'name'])
    .merge(['record_count', 'last_sync']);
}

/**
 * Runs a source's replacement, recording the outcome; `work` replaces the rows in one transaction and calls
 * `switched` inside it, so the outcome and the caller's switch work (its completion event) commit with the rows.
 */
async function finish<T extends EnrichmentStats>(
  db: Db,
  feed: string,
  kind: string,
  source: string,
  onSwitch: SwitchHook<T> | undefined,
  work: (switched: (trx: Db, stats: T) => Promise<void>) => Promise<T>,
): Promise<T> {
  await ensureFeed(db, feed, kind);
  try {
    return await work(async (trx, stats) => {
      await recordSyncOutcome(trx, feed, { status: 'ok', stats, source, kind });
      await onSwitch?.(trx, stats);
    });
  } catch (err) {
    await recordSyncOutcome(db, feed, { status: 'failed', error: err instanceof Error ? err.message : String(err), source, kind });
    throw err;
  }
}

export function syncKevSource(db: Db, feed: string, path: string, source = path, onSwitch?: SwitchHook<EnrichmentStats>): Promise<EnrichmentStats> {
  return finish(db, feed, 'kev', source, onSwitch, async (switched) => {
    const catalog = await readKevFile(path);
    const stats: EnrichmentStats = { read: catalog.entries.length + catalog.skipped, skipped: catalog.skipped, stored: catalog.entries.length, errors: catalog.errors };
    await db.transaction(async (trx) => {
      await trx('vuln_kev').where({ feed }).delete();
      const rows = catalog.entries.map((e) => ({
        cve_id: e.cveId,
        feed,
        vendor_project: e.vendorProject ?? null,
        product: e.product ?? null,
        vulnerability_name: e.vulnerabilityName ?? null,
        date_added: e.dateAdded ?? null,
        due_date: e.dueDate ?? null,
        known_ransomware_campaign_use: e.knownRansomwareCampaignUse ?? null,
      }));
      // Another KEV feed may already hold a CVE; the catalog is the same list, so the first one stays.
      for (let i = 0; i < rows.length; i += BATCH) await trx('vuln_kev').insert(rows.slice(i, i + BATCH)).onConflict('cve_id').ignore();
      await setSingleGroup(trx, feed, 'kev', rows.length);
      await switched(trx, stats);
    });
    return stats;
  });
}

type EpssStats = EnrichmentStats & { scoreDate?: string };

export function syncEpssSource(db: Db, feed: string, path: string, source = path, onSwitch?: SwitchHook<EpssStats>): Promise<EpssStats> {
  return finish(db, feed, 'epss', source, onSwitch, async (switched) => {
    const input = readEpssCsv(path);
    let stored = 0;
    let stats: EpssStats | undefined;
    await db.transaction(async (trx) => {
      await trx('vuln_epss').where({ feed }).delete();
      let batch: { cve_id: string; feed: string; epss: number; percentile: number }[] = [];
      for await (const e of input.entries) {
        batch.push({ cve_id: e.cveId, feed, epss: e.epss, percentile: e.percentile });
        if (batch.length >= BATCH) {
          await trx('vuln_epss').insert(batch).onConflict('cve_id').merge(['feed', 'epss', 'percentile']);
          stored += batch.length;
          batch = [];
        }
      }
      if (batch.length) await trx('vuln_epss').insert(batch).onConflict('cve_id').merge(['feed', 'epss', 'percentile']);
      stored += batch.length;
      await setSingleGroup(trx, feed, 'epss', stored);
      stats = { read: input.stats.read, skipped: input.stats.skipped, stored, errors: input.stats.errors, scoreDate: input.meta.scoreDate };
      await switched(trx, stats);
    });
    return stats!;
  });
}

type NvdStats = EnrichmentStats & { unscored: number; timestamp?: string };

/**
 * NVD's CVSS per CVE, as the namespace `nvd` (upstream's name for NVD data). Each file is a complete snapshot of the
 * CVEs it covers (NVD publishes one per CVE year, so each yearly file is a source of its own).
 */
export function syncNvdSource(db: Db, feed: string, path: string, maxRecordBytes: number, source = path, onSwitch?: SwitchHook<NvdStats>): Promise<NvdStats> {
  return finish(db, feed, 'nvd', source, onSwitch, async (switched) => {
    const input = readNvdFeed(path, { maxRecordBytes });
    let stored = 0;
    let stats: NvdStats | undefined;
    await db.transaction(async (trx) => {
      await trx('vuln_nvd').where({ feed }).delete();
      let batch: { cve_id: string; feed: string; severity: string; data: string }[] = [];
      const flush = async () => {
        if (batch.length) await trx('vuln_nvd').insert(batch).onConflict('cve_id').merge(['feed', 'severity', 'data']);
        stored += batch.length;
        batch = [];
      };
      for await (const e of input.entries) {
        batch.push({ cve_id: e.cveId, feed, severity: e.severity, data: JSON.stringify({ v3: e.v3, v2: e.v2 }) });
        if (batch.length >= BATCH) await flush();
      }
      await flush();
      await setSingleGroup(trx, feed, 'nvd', stored);
      // The reporting read model copies each record's severity; records it shows without one whose CVE this file
      // scores are logged as changed, so its next refresh picks NVD's rating up (the triggers log only record edits).
      await trx.raw(
        `INSERT INTO report_changes (kind, account_name, ref)
         SELECT 'vulnerability', '', rv.feed || ' ' || rv.vuln_id FROM report_vulnerabilities rv
         JOIN vuln_nvd n ON n.cve_id = rv.cve WHERE rv.severity = 'Unknown' AND n.feed = ?`,
        [feed],
      );
      const { read, skipped, errors, unscored } = input.stats;
      stats = { read, skipped, stored, unscored, errors, ...(input.meta.timestamp ? { timestamp: input.meta.timestamp } : {}) };
      await switched(trx, stats);
    });
    return stats!;
  });
}
