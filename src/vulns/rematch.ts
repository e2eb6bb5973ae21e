/**
 * Keeping findings current without re-analysis: after a feed sync, only the images (and imported sources) holding
 * a package whose advisories changed are re-matched, and within them only those packages. Each image's new
 * findings and its `vuln_update` events (one per subscribed tag, carrying the diff) are written in one transaction;
 * a source's changed findings record a `user.source.vulnerabilities.update` event.
 */
import type { Db } from '../db/index.js';
import { recordEvent } from '../events/events.js';
import { lookupTarget } from './ecosystems.js';
import {
  IMAGE_FINDINGS,
  imagePackageOf,
  isEmptyDiff,
  newMatchCache,
  PACKAGE_COLUMNS,
  refreshFindings,
  SOURCE_FINDINGS,
  type FindingsDiff,
  type FindingsSubjectKind,
  type ImagePackage,
  type MatchCache,
  type PackageRowFields,
} from './findings.js';
import { matchKeyId, type MatchKey } from './records.js';
import { knexVulnerabilityProvider } from './vulnerability-repository.js';
import { applyCorrections, listedCorrections, renamingCorrections } from './corrections/apply.js';
import { listCorrections } from './corrections/store.js';
import type { Correction } from './corrections/model.js';

export interface RematchStats {
  images: number;
  changedImages: number;
  sources: number;
  changedSources: number;
  added: number;
  updated: number;
  removed: number;
}

/** The kinds of subject a re-match covers, images first. */
const SUBJECT_KINDS: readonly FindingsSubjectKind[] = [IMAGE_FINDINGS, SOURCE_FINDINGS];

export interface RematchOptions {
  onProgress?: (stats: Readonly<RematchStats>) => void;
  /** Called after each image whose findings changed has been written. */
  onImageChanged?: (accountName: string, digest: string) => Promise<void>;
}

const CHUNK = 400;
const IMAGES_PER_TRANSACTION = 20;

/** Names a package is looked up under regardless of distro (the distro only adds the release). */
function lookupNames(p: { type: string; name: string; origin: string | null }): string[] {
  const target = lookupTarget({ ...p, version: '' }, undefined);
  return target ? target.names : [p.name, p.origin].filter((n): n is string => !!n);
}

/** Names a package may be looked up under: its own, and those of renaming corrections, one by one and together. */
function correctableLookupNames(p: { type: string; name: string; origin: string | null }, renaming: Correction[]): Set<string> {
  const names = new Set(lookupNames(p));
  if (renaming.length === 0) return names;
  for (const list of [...renaming.map((c) => [c]), renaming])
    for (const corrected of applyCorrections([{ ...p, version: '' }], list)) if (corrected.name !== p.name || corrected.origin !== p.origin) for (const n of lookupNames(corrected)) names.add(n);
  return names;
}

interface SubjectScope {
  kind: FindingsSubjectKind;
  account_name: string;
  id: string;
  analyzed_at?: string | null;
  packages?: ImagePackage[];
}

/**
 * Analyzed images and sources holding a package looked up under one of the keys' names (the release is checked per
 * subject), with those packages, and the keys that can hit any package at all: one pass over each package table by
 * name for all subjects, not a query per subject. The keys come in batches and only those naming a package some
 * subject holds are kept, so memory follows what the subjects hold, not how many keys a sync changed.
 */
async function subjectsHolding(db: Db, keyBatches: AsyncIterable<MatchKey[]> | Iterable<MatchKey[]>): Promise<{ subjects: SubjectScope[]; rawNames: string[]; keys: Set<string> }> {
  // A corrected package is looked up under its corrected names too (corrections/apply.ts).
  const renaming = renamingCorrections(await listCorrections(db));
  const rawNamesByLookup = new Map<string, string[]>();
  for (const kind of SUBJECT_KINDS) {
    const tuples: { type: string; name: string; origin: string | null }[] = await db(kind.packagesTable).distinct('type', 'name', 'origin');
    for (const t of tuples)
      for (const n of correctableLookupNames(t, renaming)) {
        const raw = rawNamesByLookup.get(n);
        if (raw) raw.push(t.name);
        else rawNamesByLookup.set(n, [t.name]);
      }
  }
  const keys = new Set<string>();
  const names = new Set<string>();
  for await (const batch of keyBatches)
    for (const key of batch) {
      const raw = rawNamesByLookup.get(key.packageName);
      if (!raw) continue;
      keys.add(matchKeyId(key));
      for (const n of raw) names.add(n);
    }
  const rawNames = [...names];
  const subjects = new Map<string, SubjectScope & { packages: ImagePackage[] }>();
  for (const kind of SUBJECT_KINDS)
    for (let i = 0; i < rawNames.length; i += CHUNK) {
      const rows: (PackageRowFields & { account_name: string; id: string; analyzed_at: string | null })[] = await db(`${kind.packagesTable} as p`)
        .join(`${kind.table} as i`, function joinSubject() {
          this.on('i.account_name', '=', 'p.account_name').andOn(`i.${kind.idColumn}`, '=', `p.${kind.idColumn}`);
        })
        .where('i.analysis_status', 'analyzed')
        // By id from the names' index entries rather than by name: SQLite then reads the rows in table order
        // (an image's packages lie together) instead of jumping across the table name by name.
        .whereIn('p.id', db(kind.packagesTable).whereIn('name', rawNames.slice(i, i + CHUNK)).select('id'))
        .select('p.account_name', `p.${kind.idColumn} as id`, 'i.analyzed_at', ...PACKAGE_COLUMNS.map((c) => `p.${c}`));
      for (const r of rows) {
        const key = `${kind.table}\u0000${r.account_name}\u0000${r.id}`;
        let scope = subjects.get(key);
        if (!scope) subjects.set(key, (scope = { kind, account_name: r.account_name, id: r.id, analyzed_at: r.analyzed_at, packages: [] }));
        scope.packages.push(imagePackageOf(r));
      }
    }
  return { subjects: [...subjects.values()], rawNames, keys };
}

async function analyzedSubjects(db: Db): Promise<SubjectScope[]> {
  const out: SubjectScope[] = [];
  for (const kind of SUBJECT_KINDS) {
    const rows: { account_name: string; id: string }[] = await db(kind.table)
      .where({ analysis_status: 'analyzed' })
      .orderBy(['account_name', kind.idColumn])
      .select('account_name', `${kind.idColumn} as id`);
    for (const r of rows) out.push({ kind, ...r });
  }
  return out;
}

/** Records one `vuln_update` event per current tag of the image that has an active vuln_update subscription. */
export async function notifySubscribedTags(db: Db, accountName: string, digest: string, diff: FindingsDiff): Promise<number> {
  const tags: { full_tag: string }[] = await db('image_tags as t')
    .join('subscriptions as s', function joinSubscription() {
      this.on('s.account_name', '=', 't.account_name').andOn('s.subscription_key', '=', 't.full_tag');
    })
    .where({ 't.account_name': accountName, 't.image_digest': digest, 't.current': true, 's.subscription_type': 'vuln_update', 's.active': true })
    .distinct('t.full_tag');
  for (const { full_tag } of tags)
    await recordEvent(db, {
      accountName,
      type: 'user.checks.tag.vulnerabilities.update',
      resourceType: 'image_tag',
      resourceId: full_tag,
      message: `${full_tag}: ${diff.added.length} added, ${diff.updated.length} updated, ${diff.removed.length} removed`,
      details: { subscription_type: 'vuln_update', subscription_key: full_tag, image_digest: digest, diff_vulnerability_result: diff },
    });
  return tags.length;
}

/** Records what a re-match changed: per subscribed tag for an image, one event for a source. */
async function recordChange(db: Db, subject: SubjectScope, diff: FindingsDiff): Promise<void> {
  if (subject.kind === IMAGE_FINDINGS) {
    await notifySubscribedTags(db, subject.account_name, subject.id, diff);
    return;
  }
  await recordEvent(db, {
    accountName: subject.account_name,
    type: 'user.source.vulnerabilities.update',
    resourceType: 'source',
    resourceId: subject.id,
    message: `source ${subject.id}: ${diff.added.length} added, ${diff.updated.length} updated, ${diff.removed.length} removed`,
    details: { source_id: subject.id, diff_vulnerability_result: diff },
  });
}

/** Whole images to re-match, all their packages (after a package correction changed: corrections/). */
export interface ImageList {
  images: { account_name: string; image_digest: string }[];
}

async function rematchScope(db: Db, changed: MatchKey[] | AsyncIterable<MatchKey[]> | 'all' | ImageList): Promise<{ subjects: SubjectScope[]; rawNames?: string[]; keys?: Set<string> }> {
  if (changed === 'all') return { subjects: await analyzedSubjects(db), rawNames: undefined, keys: undefined };
  if ('images' in changed) return { subjects: changed.images.map((i) => ({ kind: IMAGE_FINDINGS, account_name: i.account_name, id: i.image_digest })), rawNames: undefined, keys: undefined };
  return subjectsHolding(db, Array.isArray(changed) ? [changed] : changed);
}

/**
 * Re-matches the images and sources affected by changed index keys (a list, or batches of them), the images
 * listed, or every analyzed image and source for `'all'` (after a feed or group is enabled, disabled or deleted).
 */
export async function rematchImages(db: Db, changed: MatchKey[] | AsyncIterable<MatchKey[]> | 'all' | ImageList, options: RematchOptions = {}): Promise<RematchStats> {
  const stats: RematchStats = { images: 0, changedImages: 0, sources: 0, changedSources: 0, added: 0, updated: 0, removed: 0 };
  if (Array.isArray(changed) && changed.length === 0) return stats;
  const scope = await rematchScope(db, changed);
  const onlyKeys = scope.keys;
  const exclusions = await knexVulnerabilityProvider(db).exclusions();
  // Read once, before the transactions (on SQLite a read through `db` inside one would wait for its connection).
  const corrections = listedCorrections(await listCorrections(db));
  const cache: MatchCache = newMatchCache();
  // A few subjects per transaction: fewer commits, and each one's findings still land with its events.
  for (let i = 0; i < scope.subjects.length; i += IMAGES_PER_TRANSACTION) {
    const batch = scope.subjects.slice(i, i + IMAGES_PER_TRANSACTION);
    const diffs = await db.transaction(async (trx) => {
      const out: FindingsDiff[] = [];
      for (const subject of batch) {
        const d = await refreshFindings(trx, subject.kind, subject.account_name, subject.id, {
          onlyKeys,
          candidateNames: scope.rawNames,
          packages: subject.packages,
          packagesAsOf: subject.analyzed_at,
          exclusions,
          corrections,
          cache,
        });
        if (!isEmptyDiff(d)) await recordChange(trx, subject, d);
        out.push(d);
      }
      return out;
    });
    for (const [j, diff] of diffs.entries()) {
      const subject = batch[j]!;
      const isImage = subject.kind === IMAGE_FINDINGS;
      if (isImage) stats.images++;
      else stats.sources++;
      if (!isEmptyDiff(diff)) {
        if (isImage) {
          stats.changedImages++;
          await options.onImageChanged?.(subject.account_name, subject.id);
        } else stats.changedSources++;
      }
      stats.added += diff.added.length;
      stats.updated += diff.updated.length;
      stats.removed += diff.removed.length;
    }
    options.onProgress?.(stats);
  }
  return stats;
}

const KEY_BATCH = 5000;

/** The keys queued up to id `upTo`, in batches. */
async function* queuedKeyBatches(db: Db, upTo: number): AsyncGenerator<MatchKey[]> {
  for (let after = 0; ; ) {
    const rows: { id: number; ecosystem: string; release: string; package_name: string }[] = await db('vuln_rematch_keys')
      .where('id', '>', after)
      .andWhere('id', '<=', upTo)
      .orderBy('id')
      .limit(KEY_BATCH)
      .select('id', 'ecosystem', 'release', 'package_name');
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    yield rows.map(keyOfRow);
  }
}

function keyOfRow(r: { ecosystem: string; release: string; package_name: string }): MatchKey {
  return { ecosystem: r.ecosystem, release: r.release === '' ? null : r.release, packageName: r.package_name };
}

/**
 * Re-matches the images holding the keys feed syncs queued (vuln_rematch_keys), and takes those keys off the
 * queue once done. Keys of a sync whose re-match failed or never ran (a crash) stay queued for the next call.
 */
export async function rematchQueuedKeys(db: Db, options: RematchOptions = {}): Promise<RematchStats> {
  const last = Number((await db('vuln_rematch_keys').max({ id: 'id' }).first())?.id ?? 0);
  if (last === 0) return rematchImages(db, [], options);
  const stats = await rematchImages(db, queuedKeyBatches(db, last), options);
  await db('vuln_rematch_keys').where('id', '<=', last).delete();
  return stats;
}

/** The keys one sync queued (tests and benchmarks; a large sync's keys are many). */
export async function queuedKeysOf(db: Db, syncId: string): Promise<MatchKey[]> {
  const rows = await db('vuln_rematch_keys').where({ sync_id: syncId }).orderBy('id').select('ecosystem', 'release', 'package_name');
  return rows.map(keyOfRow);
}
