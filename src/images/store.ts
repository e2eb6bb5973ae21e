/**
 * Image records: the image row, its tag mappings (current and historic), its analysis status history, and the
 * analysis results (packages as rows, large documents gzipped, the file list in chunks: file-list.ts). Every query
 * is scoped to an account.
 */
import { hostname } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { insertObjects } from '../db/insert-rows.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { deleteUpload } from '../uploads/stored-uploads.js';
import { nowIso } from '../util/time.js';
import { recordEvent, type NewEvent } from '../events/events.js';
import { writeFileList } from './file-list.js';
import { decodeGoSymbols, encodeGoSymbols, type GoSymbolIndex } from '../ecosystems/go/symbols.js';
import type { FileRecord } from './model.js';
import type { CatalogedPackage, PackageOwner } from '../ecosystems/model.js';

export type AnalysisStatus = 'not_analyzed' | 'analyzing' | 'analyzed' | 'analysis_failed';
export type ImageStatus = 'active' | 'deleting';

export interface ImageSourceRecord {
  kind: 'registry' | 'archive' | 'import';
  /** import: the operation and the digests of its parts. */
  operation_uuid?: string;
  contents?: Record<string, string | undefined>;
  /** registry: the reference to pull (by digest once known). */
  pull_string?: string;
  platform?: string;
  /** archive: the stored upload (src/uploads/stored-uploads.ts) kept until analysis finishes. */
  upload?: string;
  /** archive, from before uploads were stored in the database: the file in the receiving node's data dir. */
  path?: string;
}

export interface ImageRecord {
  account_name: string;
  image_digest: string;
  parent_digest: string | null;
  image_id: string | null;
  image_type: string;
  image_status: ImageStatus;
  analysis_status: AnalysisStatus;
  annotations: string;
  source: string;
  dockerfile: string | null;
  arch: string | null;
  distro: string | null;
  distro_version: string | null;
  distro_like: string | null;
  dockerfile_mode: string | null;
  image_size: number | null;
  layer_count: number | null;
  analyzed_at: string | null;
  /** JSON of an AnalysisProgress while the analysis runs (analysis-progress.ts), null otherwise. */
  analysis_progress: string | null;
  created_at: string;
  last_updated: string;
}

export interface TagRecord {
  id: number;
  account_name: string;
  image_digest: string;
  registry: string;
  repo: string;
  tag: string;
  full_tag: string;
  tag_detected_at: string;
  current: boolean;
  created_at: string;
  last_updated: string;
}

export interface StatusChange {
  from_status: string;
  to_status: string;
  detail: string | null;
  host_id: string;
  timestamp: string;
}

export type DocumentKind =
  | 'manifest'
  | 'config'
  | 'history'
  | 'dockerfile'
  | 'layers'
  | 'warnings'
  | 'retrieved_files'
  | 'secret_search'
  | 'content_search';

function notFound(digest: string): NotFoundError {
  return new NotFoundError(`image '${digest}' does not exist in this account`, { image_digest: digest });
}

export async function findImage(db: Db, accountName: string, digest: string): Promise<ImageRecord | undefined> {
  return db<ImageRecord>('images').where({ account_name: accountName, image_digest: digest }).first();
}

/** The account's images among the digests, in no particular order; unknown digests are left out. */
export async function findImages(db: Db, accountName: string, digests: string[]): Promise<ImageRecord[]> {
  return digests.length ? db<ImageRecord>('images').where({ account_name: accountName }).whereIn('image_digest', digests) : [];
}

export async function getImage(db: Db, accountName: string, digest: string): Promise<ImageRecord> {
  const image = await findImage(db, accountName, digest);
  if (!image) throw notFound(digest);
  return image;
}

/** The image, which must be analyzed: routes that read analysis results answer 409 until it is. */
export async function getAnalyzedImage(db: Db, accountName: string, digest: string): Promise<ImageRecord> {
  const image = await getImage(db, accountName, digest);
  if (image.analysis_status !== 'analyzed')
    throw new ConflictError(`image '${digest}' is not analyzed (analysis_status: ${image.analysis_status}); retry once it is`, {
      image_digest: digest,
      analysis_status: image.analysis_status,
    });
  return image;
}

export interface ImageFilter {
  fullTag?: string;
  imageStatus?: 'all' | ImageStatus;
  analysisStatus?: AnalysisStatus;
  analyzedSince?: string;
}

export async function listImages(db: Db, accountName: string, f: ImageFilter = {}): Promise<ImageRecord[]> {
  const q = db<ImageRecord>('images').where('account_name', accountName);
  if (f.imageStatus && f.imageStatus !== 'all') q.andWhere('image_status', f.imageStatus);
  if (f.analysisStatus) q.andWhere('analysis_status', f.analysisStatus);
  if (f.analyzedSince) q.andWhere('analyzed_at', '>=', new Date(f.analyzedSince).toISOString());
  if (f.fullTag)
    q.whereIn('image_digest', db('image_tags').select('image_digest').where({ account_name: accountName, full_tag: f.fullTag }));
  return q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'image_digest' }]);
}

export async function tagsOf(db: Db, accountName: string, digests: string[]): Promise<Map<string, TagRecord[]>> {
  const byDigest = new Map<string, TagRecord[]>();
  for (let i = 0; i < digests.length; i += 500) {
    const rows = await db<TagRecord>('image_tags')
      .where({ account_name: accountName })
      .whereIn('image_digest', digests.slice(i, i + 500))
      .orderBy([{ column: 'tag_detected_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
    for (const r of rows) byDigest.set(r.image_digest, [...(byDigest.get(r.image_digest) ?? []), { ...r, current: toBool(r.current) }]);
  }
  return byDigest;
}

export async function statusHistoryOf(db: Db, accountName: string, digests: string[]): Promise<Map<string, StatusChange[]>> {
  const byDigest = new Map<string, StatusChange[]>();
  for (let i = 0; i < digests.length; i += 500) {
    const rows = await db('image_status_history')
      .where({ account_name: accountName })
      .whereIn('image_digest', digests.slice(i, i + 500))
      .orderBy('id');
    for (const r of rows) byDigest.set(r.image_digest, [...(byDigest.get(r.image_digest) ?? []), r]);
  }
  return byDigest;
}

/** Creates the image row if it is new; answers whether it was created. */
export async function ensureImage(
  db: Db,
  record: Pick<ImageRecord, 'account_name' | 'image_digest' | 'parent_digest' | 'image_type' | 'annotations' | 'source' | 'dockerfile'>,
): Promise<boolean> {
  const now = nowIso();
  const inserted = await db('images')
    .insert({ ...record, image_status: 'active', analysis_status: 'not_analyzed', created_at: now, last_updated: now })
    .onConflict(['account_name', 'image_digest'])
    .ignore()
    .returning('image_digest');
  return inserted.length > 0;
}

/**
 * Maps `fullTag` to `digest`, making it the tag's current mapping. Earlier mappings of the tag stay as
 * history (current=false). Answers the digest the tag pointed at before, when it moved.
 */
export async function mapTag(
  db: Db,
  accountName: string,
  digest: string,
  tag: { registry: string; repo: string; tag: string; fullTag: string },
  detectedAt: string = nowIso(),
): Promise<{ movedFrom: string | null }> {
  return db.transaction(async (trx) => {
    const now = nowIso();
    const previous = await trx<TagRecord>('image_tags').where({ account_name: accountName, full_tag: tag.fullTag, current: true }).first();
    if (previous && previous.image_digest === digest) return { movedFrom: null };
    await trx('image_tags').where({ account_name: accountName, full_tag: tag.fullTag }).update({ current: false, last_updated: now });
    const existing = await trx('image_tags').where({ account_name: accountName, full_tag: tag.fullTag, image_digest: digest }).first('id');
    if (existing) await trx('image_tags').where({ id: existing.id }).update({ current: true, tag_detected_at: detectedAt, last_updated: now });
    else
      await trx('image_tags').insert({
        account_name: accountName,
        image_digest: digest,
        registry: tag.registry,
        repo: tag.repo,
        tag: tag.tag,
        full_tag: tag.fullTag,
        tag_detected_at: detectedAt,
        current: true,
        created_at: now,
        last_updated: now,
      });
    return { movedFrom: previous?.image_digest ?? null };
  });
}

/** Moves the analysis status, recording the transition; `from` guards against racing writers. */
export async function transitionAnalysis(
  db: Db,
  accountName: string,
  digest: string,
  from: AnalysisStatus[],
  to: AnalysisStatus,
  detail: string | null = null,
  extra: Partial<ImageRecord> = {},
  event?: NewEvent,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const image = await trx<ImageRecord>('images').where({ account_name: accountName, image_digest: digest }).first('analysis_status');
    if (!image || !from.includes(image.analysis_status)) return false;
    const now = nowIso();
    const n = await trx('images')
      .where({ account_name: accountName, image_digest: digest, analysis_status: image.analysis_status })
      // A new status starts without the progress of the last run (a resumed analysis reports its own).
      .update({ ...extra, analysis_status: to, analysis_progress: null, last_updated: now });
    if (n === 0) return false;
    await trx('image_status_history').insert({
      account_name: accountName,
      image_digest: digest,
      from_status: image.analysis_status,
      to_status: to,
      detail,
      host_id: hostname(),
      timestamp: now,
    });
    if (event) await recordEvent(trx, event);
    return true;
  });
}

/** Records how far a running analysis is (analysis-progress.ts); an image no longer analyzing is left alone. */
export async function recordAnalysisProgress(db: Db, accountName: string, digest: string, progress: string): Promise<void> {
  await db('images').where({ account_name: accountName, image_digest: digest, analysis_status: 'analyzing' }).update({ analysis_progress: progress });
}

export interface AnalysisResult {
  imageId: string;
  arch: string | null;
  distro: string | null;
  distroVersion: string | null;
  /** os-release ID_LIKE entries. */
  distroLike?: string[];
  dockerfileMode: 'Actual' | 'Guessed' | null;
  imageSize: number;
  layerCount: number;
  /** OCI ChainID of the layer stack (see ancestry-chain.ts); null when the layers are unknown. */
  chainId?: string | null;
  packages: CatalogedPackage[];
  /** The final filesystem view, in path order (stored in chunks: file-list.ts). */
  files: FileRecord[];
  documents: Partial<Record<DocumentKind, unknown>>;
}

/**
 * Stores a finished analysis in one transaction and marks the image analyzed (replacing earlier results); the
 * completion event, when given, is part of the same transaction, so no reader sees one without the other.
 */
export async function saveAnalysis(
  db: Db,
  accountName: string,
  digest: string,
  result: AnalysisResult,
  event?: NewEvent,
  /** More writes that belong with the results (the image's vulnerability findings), in the same transaction. */
  afterSave?: (trx: Db) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const scope = { account_name: accountName, image_digest: digest };
    const image = await trx<ImageRecord>('images').where(scope).first('analysis_status');
    if (!image || image.analysis_status !== 'analyzing') return false;
    await trx('image_packages').where(scope).delete();
    const rows = result.packages.map(packageRowOf).map((p, i) => ({
      ...scope,
      ...packageColumns(p),
      // Beside the row, not in metadata: only reachability checks read it (vulns/go-reachability.ts).
      go_symbols: goSymbolsColumn(result.packages[i]!),
    }));

    await insertObjects(trx, 'image_packages', rows);
    await trx('image_documents').where(scope).delete();
    for (const [kind, value] of Object.entries(result.documents))
      if (value !== undefined) await trx('image_documents').insert({ ...scope, kind, content: gzipSync(JSON.stringify(value)) });
    await writeFileList(trx, accountName, digest, result.files);
    const now = nowIso();
    await trx('images').where(scope).update({
      image_id: result.imageId,
      arch: result.arch,
      distro: result.distro,
      distro_version: result.distroVersion,
      distro_like: result.distroLike?.length ? result.distroLike.join(',') : null,
      dockerfile_mode: result.dockerfileMode,
      image_size: result.imageSize,
      layer_count: result.layerCount,
      chain_id: result.chainId ?? null,
      analysis_status: 'analyzed',
      analysis_progress: null,
      analyzed_at: now,
      last_updated: now,
    });
    await trx('image_status_history').insert({ ...scope, from_status: 'analyzing', to_status: 'analyzed', detail: null, host_id: hostname(), timestamp: now });
    if (afterSave) await afterSave(trx);
    if (event) await recordEvent(trx, event);
    return true;
  });
}

function goSymbolsColumn(p: CatalogedPackage): Buffer | null {
  return p.goSymbols ? encodeGoSymbols(p.goSymbols) : null;
}

type GoPackageRef = { name: string; version: string; path: string | null };

/**
 * Reads the stored symbol indexes (ecosystems/go/symbols.ts) of one image's Go packages, undefined for a package
 * without one. The first call lists which packages have an index (one query, no blobs); a package's blob is read
 * only when it has one, so a refresh asks once per image, not once per matched Go package.
 */
export function goSymbolReader(db: Db, accountName: string, digest: string): (pkg: GoPackageRef) => Promise<GoSymbolIndex | undefined> {
  const keyOf = (name: string, version: string, path: string | null) => `${name}\u0000${version}\u0000${path ?? ''}`;
  let withIndex: Promise<Map<string, number>> | undefined;
  const list = async () => {
    const rows: { id: number; name: string; version: string; locations: string }[] = await db('image_packages')
      .where({ account_name: accountName, image_digest: digest, type: 'go' })
      .whereNotNull('go_symbols')
      .select('id', 'name', 'version', 'locations');
    // The first of several copies at one path wins, as the lookup by path did before.
    const out = new Map<string, number>();
    for (const r of rows.sort((a, b) => a.id - b.id)) {
      const key = keyOf(r.name, r.version, (JSON.parse(r.locations) as string[])[0] ?? null);
      if (!out.has(key)) out.set(key, r.id);
    }
    return out;
  };
  return async (pkg) => {
    const id = (await (withIndex ??= list())).get(keyOf(pkg.name, pkg.version, pkg.path));
    if (id === undefined) return undefined;
    const row: { go_symbols: Buffer | null } | undefined = await db('image_packages').where({ id }).first('go_symbols');
    return row?.go_symbols ? decodeGoSymbols(row.go_symbols) : undefined;
  };
}

export async function readDocument<T = unknown>(db: Db, accountName: string, digest: string, kind: DocumentKind): Promise<T | undefined> {
  const row = await db('image_documents').where({ account_name: accountName, image_digest: digest, kind }).first('content');
  return row ? (JSON.parse(gunzipSync(row.content).toString('utf8')) as T) : undefined;
}

export interface PackageRow {
  type: string;
  name: string;
  version: string;
  origin: string | null;
  source_version: string | null;
  size: number | null;
  licenses: string[];
  locations: string[];
  purl: string;
  cpes: string[];
  metadata: Record<string, unknown>;
  /** The OS package that installed this language package (images/ownership.ts), or null. */
  owner: PackageOwner | null;
}

/** A cataloged package as its row reads back (what gates see), stored or not. */
export function packageRowOf(p: CatalogedPackage): PackageRow {
  return {
    type: p.type,
    name: p.name,
    version: p.version,
    origin: p.origin ?? null,
    source_version: p.sourceVersion ?? null,
    size: p.size ?? null,
    licenses: p.licenses,
    locations: p.locations,
    purl: p.purl,
    cpes: p.cpes,
    metadata: p.metadata,
    owner: p.owner ?? null,
  };
}

/** A package's columns as stored; image_packages and source_packages (sources/) share them. */
export function packageColumns(p: PackageRow) {
  return {
    ...p,
    licenses: JSON.stringify(p.licenses),
    locations: JSON.stringify(p.locations),
    cpes: JSON.stringify(p.cpes),
    metadata: JSON.stringify(p.metadata),
    owner: p.owner ? JSON.stringify(p.owner) : null,
  };
}

export type PackageTable = 'image_packages' | 'source_packages';

export async function packagesOf(db: Db, accountName: string, digest: string, types?: string[]): Promise<PackageRow[]> {
  return packagesIn(db, 'image_packages', { account_name: accountName, image_digest: digest }, types);
}

/** The packages of one image or source (`scope` names it), optionally of some types, in listing order. */
export async function packagesIn(db: Db, table: PackageTable, scope: Record<string, string>, types?: string[]): Promise<PackageRow[]> {
  const q = db(table).where(scope);
  if (types) q.whereIn('type', types);
  const rows = await q.orderBy([{ column: 'type' }, { column: 'name' }, { column: 'version' }, { column: 'id' }]);
  return rows.map((r: any) => ({
    type: r.type,
    name: r.name,
    version: r.version,
    origin: r.origin,
    source_version: r.source_version,
    size: r.size === null ? null : Number(r.size),
    licenses: JSON.parse(r.licenses),
    locations: JSON.parse(r.locations),
    purl: r.purl,
    cpes: JSON.parse(r.cpes),
    metadata: JSON.parse(r.metadata),
    owner: r.owner ? JSON.parse(r.owner) : null,
  }));
}

export async function countPackagesByType(db: Db, accountName: string, digest: string): Promise<Map<string, number>> {
  return countPackagesIn(db, 'image_packages', { account_name: accountName, image_digest: digest });
}

export async function countPackagesIn(db: Db, table: PackageTable, scope: Record<string, string>): Promise<Map<string, number>> {
  const rows = await db(table).where(scope).groupBy('type').select('type').count({ n: '*' });
  return new Map(rows.map((r: any) => [r.type as string, Number(r.n)]));
}

export interface DeleteOutcome {
  image_digest: string;
  status: 'not_found' | 'delete_failed' | 'deleted';
  detail?: string;
}

/** Deletes an image with its tags and results; one still being analyzed only with `force`. */
export async function deleteImage(db: Db, accountName: string, digest: string, force: boolean): Promise<DeleteOutcome> {
  const image = await findImage(db, accountName, digest);
  if (!image) return { image_digest: digest, status: 'not_found', detail: 'no such image in this account' };
  if (image.analysis_status === 'analyzing' && !force)
    return { image_digest: digest, status: 'delete_failed', detail: 'the image is being analyzed; retry later or pass force=true' };
  await db('images').where({ account_name: accountName, image_digest: digest }).delete();
  // An archive still waiting for its analysis is of no use any more (an account's deletion leaves it to the sweep).
  const source = JSON.parse(image.source) as ImageSourceRecord;
  if (source.kind === 'archive' && source.upload) await deleteUpload(db, source.upload);
  return { image_digest: digest, status: 'deleted' };
}

export async function imageCounts(db: Db, accountName: string, f: { imageStatus?: 'all' | ImageStatus; registry?: string; repo?: string }) {
  const images = db('images as i').where('i.account_name', accountName);
  if (f.imageStatus && f.imageStatus !== 'all') images.andWhere('i.image_status', f.imageStatus);
  if (f.registry || f.repo) {
    const tagged = db('image_tags').select('image_digest').where({ account_name: accountName });
    if (f.registry) tagged.andWhere('registry', f.registry);
    if (f.repo) tagged.andWhere('repo', f.repo);
    images.whereIn('i.image_digest', tagged);
  }
  const byStatus = await images.clone().groupBy('i.analysis_status').select('i.analysis_status').count({ n: '*' });
  const tags = db('image_tags').where({ account_name: accountName, current: true }).whereIn('image_digest', images.clone().select('i.image_digest'));
  const tagCount = await tags.count({ n: '*' }).first();
  const count = (s: string) => Number(byStatus.find((r: any) => r.analysis_status === s)?.n ?? 0);
  return {
    tags: Number(tagCount?.n ?? 0),
    images: byStatus.reduce((n: number, r: any) => n + Number(r.n), 0),
    analyzed: count('analyzed'),
    analyzing: count('analyzing'),
    pending: count('not_analyzed'),
    failed: count('analysis_failed'),
  };
}

/** Analyzed images containing a package (by name, optionally type and version), one page of images at a time. */
export async function imagesWithPackage(
  db: Db,
  accountName: string,
  q: { name: string; type?: string; version?: string },
  page: number,
  limit: number,
) {
  const matching = db('image_packages').where({ account_name: accountName, name: q.name });
  if (q.type) matching.andWhere('type', q.type);
  if (q.version) matching.andWhere('version', q.version);
  const digests = (
    await db('images')
      .where({ account_name: accountName, analysis_status: 'analyzed' })
      .whereIn('image_digest', matching.clone().select('image_digest'))
      .orderBy('image_digest')
      .offset((page - 1) * limit)
      .limit(limit + 1)
      .select('image_digest', 'image_id', 'analysis_status')
  ) as { image_digest: string; image_id: string | null; analysis_status: string }[];
  const pageRows = digests.slice(0, limit);
  const packages = pageRows.length
    ? await matching.clone().whereIn('image_digest', pageRows.map((d) => d.image_digest)).select('image_digest', 'name', 'version', 'type', 'locations', 'purl')
    : [];
  const tags = await tagsOf(db, accountName, pageRows.map((d) => d.image_digest));
  return {
    images: pageRows.map((d) => ({
      ...d,
      tags: (tags.get(d.image_digest) ?? []).filter((t) => t.current).map((t) => t.full_tag),
      packages: packages
        .filter((p: any) => p.image_digest === d.image_digest)
        .map((p: any) => ({ name: p.name, version: p.version, type: p.type, location: JSON.parse(p.locations)[0] ?? '', purl: p.purl })),
    })),
    nextPage: digests.length > limit,
  };
}
