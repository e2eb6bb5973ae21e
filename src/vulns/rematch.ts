/**
 * Keeping findings current without re-analysis: after a feed sync, only the images holding a package whose
 * advisories changed are re-matched, and within them only those packages. Each image's new findings and its
 * `vuln_update` events (one per subscribed tag, carrying the diff) are written in one transaction.
 */
import type { Db } from '../db/index.js';
import { recordEvent } from '../events/events.js';
import { lookupTarget } from './ecosystems.js';
import { imagePackageOf, isEmptyDiff, PACKAGE_COLUMNS, refreshImageFindings, type FindingsDiff, type ImagePackage, type MatchCache, type PackageRowFields } from './findings.js';
import { matchKeyId, type MatchKey } from './records.js';
import { knexVulnerabilityProvider } from './vulnerability-repository.js';
import { applyCorrections, listedCorrections, renamingCorrections } from './corrections/apply.js';
import { listCorrections } from './corrections/store.js';
import type { Correction } from './corrections/model.js';

export interface RematchStats {
  images: number;
  changedImages: number;
  added: number;
  updated: number;
  removed: number;
}

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

interface ImageScope {
  account_name: string;
  image_digest: string;
  analyzed_at?: string | null;
  packages?: ImagePackage[];
}

/**
 * Analyzed images holding a package looked up under one of the keys' names (the release is checked per image),
 * with those packages, and the keys that can hit any package at all: one pass over the package table by name for
 * all images, not a query per image. The keys come in batches and only those naming a package some image holds
 * are kept, so memory follows what the images hold, not how many keys a sync changed.
 */
async function imagesHolding(db: Db, keyBatches: AsyncIterable<MatchKey[]> | Iterable<MatchKey[]>): Promise<{ images: ImageScope[]; rawNames: string[]; keys: Set<string> }> {
  const tuples: { type: string; name: string; origin: string | null }[] = await db('image_packages').distinct('type', 'name', 'origin');
  // A corrected package is looked up under its corrected names too (corrections/apply.ts).
  const renaming = renamingCorrections(await listCorrections(db));
  const rawNamesByLookup = new Map<string, string[]>();
  for (const t of tuples)
    for (const n of correctableLookupNames(t, renaming)) {
      const raw = rawNamesByLookup.get(n);
      if (raw) raw.push(t.name);
      else rawNamesByLookup.set(n, [t.name]);
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
  const images = new Map<string, ImageScope & { packages: ImagePackage[] }>();
  for (let i = 0; i < rawNames.length; i += CHUNK) {
    const rows: (PackageRowFields & { account_name: string; image_digest: string; analyzed_at: string | null })[] = await db('image_packages as p')
      .join('images as i', function joinImage() {
        this.on('i.account_name', '=', 'p.account_name').andOn('i.image_digest', '=', 'p.image_digest');
      })
      .where('i.analysis_status', 'analyzed')
      .whereIn('p.name', rawNames.slice(i, i + CHUNK))
      .select('p.account_name', 'p.image_digest', 'i.analyzed_at', ...PACKAGE_COLUMNS.map((c) => `p.${c}`));
    for (const r of rows) {
      const key = `${r.account_name}\u0000${r.image_digest}`;
      let scope = images.get(key);
      if (!scope) images.set(key, (scope = { account_name: r.account_name, image_digest: r.image_digest, analyzed_at: r.analyzed_at, packages: [] }));
      scope.packages.push(imagePackageOf(r));
    }
  }
  return { images: [...images.values()], rawNames, keys };
}

async function analyzedImages(db: Db): Promise<ImageScope[]> {
  return db('images').where({ analysis_status: 'analyzed' }).orderBy(['account_name', 'image_digest']).select('account_name', 'image_digest');
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

/** Whole images to re-match, all their packages (after a package correction changed: corrections/). */
export interface ImageList {
  images: { account_name: string; image_digest: string }[];
}

async function rematchScope(db: Db, changed: MatchKey[] | AsyncIterable<MatchKey[]> | 'all' | ImageList): Promise<{ images: ImageScope[]; rawNames?: string[]; keys?: Set<string> }> {
  if (changed === 'all') return { images: await analyzedImages(db), rawNames: undefined, keys: undefined };
  if ('images' in changed) return { images: changed.images, rawNames: undefined, keys: undefined };
  return imagesHolding(db, Array.isArray(changed) ? [changed] : changed);
}

/**
 * Re-matches the images affected by changed index keys (a list, or batches of them), the images listed, or every
 * analyzed image for `'all'` (after a feed or group is enabled, disabled or deleted).
 */
export async function rematchImages(db: Db, changed: MatchKey[] | AsyncIterable<MatchKey[]> | 'all' | ImageList, options: RematchOptions = {}): Promise<RematchStats> {
  const stats: RematchStats = { images: 0, changedImages: 0, added: 0, updated: 0, removed: 0 };
  if (Array.isArray(changed) && changed.length === 0) return stats;
  const scope = await rematchScope(db, changed);
  const onlyKeys = scope.keys;
  const exclusions = await knexVulnerabilityProvider(db).exclusions();
  // Read once, before the transactions (on SQLite a read through `db` inside one would wait for its connection).
  const corrections = listedCorrections(await listCorrections(db));
  const cache: MatchCache = new Map();
  // A few images per transaction: fewer commits, and each image's findings still land with its events.
  for (let i = 0; i < scope.images.length; i += IMAGES_PER_TRANSACTION) {
    const batch = scope.images.slice(i, i + IMAGES_PER_TRANSACTION);
    const diffs = await db.transaction(async (trx) => {
      const out: FindingsDiff[] = [];
      for (const image of batch) {
        const d = await refreshImageFindings(trx, image.account_name, image.image_digest, {
          onlyKeys,
          candidateNames: scope.rawNames,
          packages: image.packages,
          packagesAsOf: image.analyzed_at,
          exclusions,
          corrections,
          cache,
        });
        if (!isEmptyDiff(d)) await notifySubscribedTags(trx, image.account_name, image.image_digest, d);
        out.push(d);
      }
      return out;
    });
    for (const [j, diff] of diffs.entries()) {
      stats.images++;
      if (!isEmptyDiff(diff)) {
        stats.changedImages++;
        await options.onImageChanged?.(batch[j]!.account_name, batch[j]!.image_digest);
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
