/**
 * Incremental refresh of the reporting read model. Triggers log every change to the source tables in
 * report_changes; a refresh reads a batch of that log, rewrites the report rows of each changed image (or
 * account inventory, vulnerability record, active policy) from the source tables, and deletes exactly the log
 * rows it applied. Rows committed while it ran stay for the next pass, so nothing is lost and no watermark can
 * skip a late commit. One node refreshes at a time (a lease in report_state).
 */
import type { Db } from '../db/index.js';
import { databaseKind, toBool } from '../db/index.js';
import { parseImageReference, fullTag } from '../images/sources/references.js';
import { applyNvd, detailsOf } from '../vulns/vuln-details.js';
import { readRecords } from '../vulns/vulnerability-repository.js';
import { nowIso } from '../util/time.js';
import { acquireLease, readState, releaseLease, writeState } from './state.js';

const CHANGE_BATCH = 5000;
const IMAGES_PER_TRANSACTION = 25;
const INSERT_CHUNK = 200;
const LEASE_SECONDS = 60;
const ANALYZE_AFTER_CHANGES = 20_000;

export interface RefreshOutcome {
  /** False when another node holds the refresh lease. */
  ran: boolean;
  changesApplied: number;
  images: number;
  vulnerabilities: number;
  inventories: number;
  policies: number;
}

interface ChangeRow {
  id: number | string;
  kind: string;
  account_name: string;
  ref: string;
}

const osvLink = (id: string) => `https://osv.dev/vulnerability/${encodeURIComponent(id)}`;
const CVE = /^CVE-\d{4}-\d{4,}$/;

async function insertChunked(db: Db, table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await db(table).insert(rows.slice(i, i + INSERT_CHUNK));
}

/** report_vulnerabilities rows for records (feed, id) from the feed tables; a record gone from its feed is removed. */
async function refreshVulnerabilityRecords(db: Db, keys: { feed: string; id: string }[]): Promise<void> {
  const byFeed = new Map<string, string[]>();
  for (const k of keys) byFeed.set(k.feed, [...(byFeed.get(k.feed) ?? []), k.id]);
  for (const [feed, ids] of byFeed)
    for (let i = 0; i < ids.length; i += 400) {
      const chunk = ids.slice(i, i + 400);
      const records = await readRecords(db, chunk.map((id) => ({ feed, id })));
      const found = new Map([...records.values()].map((r) => [r.id, detailsOf(feed, r)]));
      await applyNvd(db, found.values());
      await db.transaction(async (trx) => {
        await trx('report_vulnerabilities').where({ feed }).whereIn('vuln_id', chunk).delete();
        const fresh = [...found.values()].map((d) => ({
          feed,
          vuln_id: d.id,
          severity: d.severity,
          cve: CVE.test(d.id) ? d.id : (d.cveIds[0] ?? null),
          links: JSON.stringify([...new Set([d.url, ...d.references.map((r) => r.url)])]),
        }));
        await insertChunked(trx, 'report_vulnerabilities', fresh);
        for (const v of fresh)
          await trx('report_findings').where({ feed, vuln_id: v.vuln_id }).whereNot({ severity: v.severity }).update({ severity: v.severity });
      });
    }
}

type FindingRecordKey = { feed: string; vuln_id: string };
const recordKey = (k: FindingRecordKey) => `${k.feed} ${k.vuln_id}`;

/** Adds the read model's severity of each record to `out`, keyed by recordKey. */
async function readSeverities(db: Db, keys: FindingRecordKey[], out: Map<string, string>): Promise<void> {
  for (let i = 0; i < keys.length; i += 400) {
    const rows: { feed: string; vuln_id: string; severity: string }[] = await db('report_vulnerabilities')
      .whereIn('vuln_id', [...new Set(keys.slice(i, i + 400).map((k) => k.vuln_id))])
      .select('feed', 'vuln_id', 'severity');
    for (const r of rows) out.set(recordKey(r), r.severity);
  }
}

/** Severity per (feed, id) for findings being copied, computing records the read model has not seen yet. */
async function severities(db: Db, keys: FindingRecordKey[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const wanted = [...new Map(keys.map((k) => [recordKey(k), k])).values()];
  await readSeverities(db, wanted, out);
  const missing = wanted.filter((k) => !out.has(recordKey(k)));
  if (missing.length) {
    await refreshVulnerabilityRecords(db, missing.map((k) => ({ feed: k.feed, id: k.vuln_id })));
    await readSeverities(db, missing, out);
  }
  return out;
}

function fixedInOf(fixState: string, fixedIn: string): string | null {
  if (fixState !== 'fixed') return null;
  const versions = JSON.parse(fixedIn) as string[];
  return versions.length ? versions.join(',') : null;
}

/** Rewrites the report rows of some images of one account from the source tables, in one transaction. */
async function refreshImages(db: Db, accountName: string, digests: string[], refreshedAt: string): Promise<void> {
  const images = await db('images').where({ account_name: accountName }).whereIn('image_digest', digests);
  const present = images.map((i) => i.image_digest as string);
  const tags = present.length ? await db('image_tags').where({ account_name: accountName }).whereIn('image_digest', present) : [];
  const findings = present.length ? await db('image_vulnerabilities').where({ account_name: accountName }).whereIn('image_digest', present) : [];
  const evaluations = present.length
    ? await db('policy_evaluations')
        .where({ account_name: accountName })
        .whereIn('image_digest', present)
        .select('id', 'image_digest', 'tag', 'policy_id', 'policy_digest', 'status', 'latest', 'evaluation_time', 'final_action_reason')
    : [];
  const severity = await severities(db, findings.map((f) => ({ feed: f.feed, vuln_id: f.vuln_id })));
  const tagState = new Map<string, number>();
  for (const t of tags) tagState.set(t.image_digest, Math.max(tagState.get(t.image_digest) ?? 0, toBool(t.current) ? 2 : 1));

  await db.transaction(async (trx) => {
    for (const table of ['report_tags', 'report_findings', 'report_policy_evaluations', 'report_images'])
      await trx(table).where({ account_name: accountName }).whereIn('image_digest', digests).delete();
    await insertChunked(
      trx,
      'report_images',
      images.map((i) => ({
        account_name: accountName,
        image_digest: i.image_digest,
        analysis_status: i.analysis_status,
        analyzed_at: i.analyzed_at,
        distro: i.distro,
        distro_version: i.distro_version,
        refreshed_at: refreshedAt,
      })),
    );
    await insertChunked(
      trx,
      'report_tags',
      tags.map((t) => ({
        account_name: accountName,
        image_digest: t.image_digest,
        registry: t.registry,
        repository: t.repo,
        tag: t.tag,
        full_tag: t.full_tag,
        detected_at: t.tag_detected_at,
        current: toBool(t.current),
      })),
    );
    await insertChunked(
      trx,
      'report_findings',
      findings.map((f) => ({
        account_name: accountName,
        image_digest: f.image_digest,
        vuln_id: f.vuln_id,
        feed: f.feed,
        severity: severity.get(`${f.feed} ${f.vuln_id}`) ?? 'Unknown',
        package_name: f.package_name,
        package_version: f.package_version,
        package_type: f.package_type,
        package_path: f.package_path,
        namespace: f.feed_group,
        fixed_in: fixedInOf(f.fix_state, f.fixed_in),
        fix_observed_at: f.fix_observed_at,
        detected_at: f.detected_at,
        tag_state: tagState.get(f.image_digest) ?? 0,
        matched_by: f.matched_by,
        confidence: f.confidence,
      })),
    );
    await insertChunked(
      trx,
      'report_policy_evaluations',
      evaluations.map((e) => ({
        id: Number(e.id),
        account_name: accountName,
        image_digest: e.image_digest,
        full_tag: e.tag,
        policy_id: e.policy_id,
        policy_digest: e.policy_digest,
        result: e.status,
        reason: e.final_action_reason ?? 'policy_evaluation',
        evaluated_at: e.evaluation_time,
        latest: toBool(e.latest),
      })),
    );
  });
}

/** Normalises a reported image reference the way tag mappings are stored (docker.io/library/nginx:latest). */
function normalisedTag(imageTag: string): string {
  try {
    return fullTag(parseImageReference(imageTag));
  } catch {
    return imageTag;
  }
}

/** Rebuilds an account's runtime inventory rows, resolving digests the reporter did not know through current tags. */
async function refreshInventory(db: Db, accountName: string): Promise<void> {
  const items = await db('inventory_items').where({ account_name: accountName });
  const tags = [...new Set(items.filter((i) => !i.image_digest).map((i) => normalisedTag(i.image_tag)))];
  const current = new Map<string, string>();
  for (let i = 0; i < tags.length; i += 400) {
    const rows = await db('image_tags')
      .where({ account_name: accountName, current: true })
      .whereIn('full_tag', tags.slice(i, i + 400))
      .select('full_tag', 'image_digest');
    for (const r of rows) current.set(r.full_tag, r.image_digest);
  }
  await db.transaction(async (trx) => {
    await trx('report_inventory').where({ account_name: accountName }).delete();
    await insertChunked(
      trx,
      'report_inventory',
      items.map((i) => ({
        account_name: accountName,
        inventory_type: i.inventory_type,
        context: i.context,
        image_tag: i.image_tag,
        image_digest: i.image_digest || current.get(normalisedTag(i.image_tag)) || null,
        last_seen: i.last_seen,
      })),
    );
  });
}

async function refreshActivePolicy(db: Db, accountName: string): Promise<void> {
  const active = await db('policies').where({ account_name: accountName, active: true }).first('policy_id');
  await db.transaction(async (trx) => {
    await trx('report_active_policies').where({ account_name: accountName }).delete();
    if (active) await trx('report_active_policies').insert({ account_name: accountName, policy_id: active.policy_id });
  });
}

async function deleteApplied(db: Db, rows: ChangeRow[]): Promise<void> {
  if (databaseKind(db) === 'sqlite') {
    // One writer at a time: nothing below the highest id read can commit later.
    await db('report_changes').where('id', '<=', Math.max(...rows.map((r) => Number(r.id)))).delete();
    return;
  }
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += 1000) await db('report_changes').whereIn('id', ids.slice(i, i + 1000)).delete();
}

/** Applies one batch of the change log; returns how much it applied (0 when the log was empty). */
async function applyBatch(db: Db, outcome: RefreshOutcome): Promise<number> {
  const rows: ChangeRow[] = await db('report_changes').orderBy('id').limit(CHANGE_BATCH).select('id', 'kind', 'account_name', 'ref');
  if (!rows.length) return 0;
  const refreshedAt = nowIso();
  const images = new Map<string, Set<string>>();
  const records = new Map<string, { feed: string; id: string }>();
  const inventories = new Set<string>();
  const policies = new Set<string>();
  for (const r of rows) {
    if (r.kind === 'image') {
      if (!images.has(r.account_name)) images.set(r.account_name, new Set());
      images.get(r.account_name)!.add(r.ref);
    } else if (r.kind === 'vulnerability') {
      const space = r.ref.indexOf(' ');
      records.set(r.ref, { feed: r.ref.slice(0, space), id: r.ref.slice(space + 1) });
    } else if (r.kind === 'inventory') inventories.add(r.account_name);
    else if (r.kind === 'policy') policies.add(r.account_name);
  }
  if (records.size) await refreshVulnerabilityRecords(db, [...records.values()]);
  for (const [account, digests] of images) {
    const list = [...digests];
    for (let i = 0; i < list.length; i += IMAGES_PER_TRANSACTION) await refreshImages(db, account, list.slice(i, i + IMAGES_PER_TRANSACTION), refreshedAt);
    // New tag mappings can resolve inventory items reported without a digest.
    if (await db('inventory_items').where({ account_name: account }).first('id')) inventories.add(account);
  }
  for (const account of inventories) await refreshInventory(db, account);
  for (const account of policies) await refreshActivePolicy(db, account);
  await deleteApplied(db, rows);
  outcome.changesApplied += rows.length;
  outcome.images += [...images.values()].reduce((n, s) => n + s.size, 0);
  outcome.vulnerabilities += records.size;
  outcome.inventories += inventories.size;
  outcome.policies += policies.size;
  return rows.length;
}

/**
 * Applies every pending change. `holder` names this node for the lease; a node that cannot take the lease
 * returns at once with `ran: false` (another node is refreshing).
 */
export async function refreshReadModel(db: Db, holder: string): Promise<RefreshOutcome> {
  const outcome: RefreshOutcome = { ran: false, changesApplied: 0, images: 0, vulnerabilities: 0, inventories: 0, policies: 0 };
  if (!(await acquireLease(db, 'refresh', holder, LEASE_SECONDS))) return outcome;
  outcome.ran = true;
  try {
    while ((await applyBatch(db, outcome)) > 0) await acquireLease(db, 'refresh', holder, LEASE_SECONDS);
    // After a bulk change Postgres's planner statistics are stale (it then scans whole tables for IN lists).
    if (outcome.changesApplied >= ANALYZE_AFTER_CHANGES && databaseKind(db) === 'postgres')
      await db.raw('ANALYZE report_images, report_tags, report_findings, report_vulnerabilities, report_policy_evaluations, report_inventory');
    await writeState(db, 'refreshed_at', nowIso());
  } finally {
    await releaseLease(db, 'refresh', holder);
  }
  return outcome;
}

/** When the read model last finished a refresh, and how many logged changes wait to be applied. */
export async function refreshStatus(db: Db): Promise<{ refreshedAt: string | null; pendingChanges: number }> {
  const refreshedAt = await readState(db, 'refreshed_at');
  const pending = await db('report_changes').count<{ n: number | string }[]>({ n: '*' });
  return { refreshedAt, pendingChanges: Number(pending[0].n) };
}
