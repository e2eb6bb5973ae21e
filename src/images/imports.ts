/**
 * SBOM imports ("distributed analysis"): a client-side scanner uploads what it found (packages as syft JSON,
 * CycloneDX or SPDX; optionally the manifest, config, parent manifest and Dockerfile) to an import operation,
 * then adds the image with `source.import` naming the parts by digest. Operations expire unused after a day.
 *
 * A whole SBOM document (as AnchoreCTL generates it) may be uploaded instead, as an `sbom` part: it stands in for
 * the packages part (name its digest in `contents.packages`), and the manifest and config its source metadata
 * carries (syft JSON of an image) stand in for those parts when the import names none, or names the SBOM's digest.
 *
 * Source repository imports (sources/) use the same operations and parts, marked with their artifact type so that
 * neither kind of import can see or finalize the other's operations.
 */
import { createHash, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Db } from '../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';
import { readSbomImageMetadata, readSbomPackages } from './sbom/index.js';

export type ImportPartKind =
  | 'sbom'
  | 'packages'
  | 'manifest'
  | 'image_config'
  | 'parent_manifest'
  | 'dockerfile'
  | 'secret_searches'
  | 'content_searches'
  | 'file_contents';
export type ImportStatus = 'pending' | 'queued' | 'processing' | 'complete' | 'failed' | 'expired';
export type ImportArtifactType = 'image' | 'source';

export interface ImportOperationRecord {
  uuid: string;
  account_name: string;
  status: ImportStatus;
  created_at: string;
  expires_at: string;
}

const LIFETIME_MS = 24 * 3600 * 1000;

function notFound(uuid: string): NotFoundError {
  return new NotFoundError(`import operation '${uuid}' does not exist`, { operation_id: uuid });
}

/** An operation past its expiry reads as expired (and is stored so) unless its image was already added. */
async function withExpiry(db: Db, op: ImportOperationRecord): Promise<ImportOperationRecord> {
  if (op.status === 'pending' && op.expires_at <= nowIso()) {
    await db('import_operations').where({ uuid: op.uuid, status: 'pending' }).update({ status: 'expired' });
    return { ...op, status: 'expired' };
  }
  return op;
}

export async function createOperation(db: Db, accountName: string, artifactType: ImportArtifactType = 'image'): Promise<ImportOperationRecord> {
  const now = Date.now();
  const op: ImportOperationRecord = {
    uuid: randomUUID(),
    account_name: accountName,
    status: 'pending',
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + LIFETIME_MS).toISOString(),
  };
  await db('import_operations').insert({ ...op, artifact_type: artifactType });
  return op;
}

const OPERATION_COLUMNS = ['uuid', 'account_name', 'status', 'created_at', 'expires_at'];

export async function listOperations(db: Db, accountName: string, artifactType: ImportArtifactType = 'image'): Promise<ImportOperationRecord[]> {
  const rows: ImportOperationRecord[] = await db('import_operations')
    .where({ account_name: accountName, artifact_type: artifactType })
    .orderBy('created_at', 'desc')
    .select(OPERATION_COLUMNS);
  return Promise.all(rows.map((r) => withExpiry(db, r)));
}

export async function getOperation(db: Db, accountName: string, uuid: string, artifactType: ImportArtifactType = 'image'): Promise<ImportOperationRecord> {
  const op: ImportOperationRecord | undefined = await db('import_operations').where({ account_name: accountName, uuid, artifact_type: artifactType }).first(OPERATION_COLUMNS);
  if (!op) throw notFound(uuid);
  return withExpiry(db, op);
}

export async function invalidateOperation(db: Db, accountName: string, uuid: string, artifactType: ImportArtifactType = 'image'): Promise<ImportOperationRecord> {
  const op = await getOperation(db, accountName, uuid, artifactType);
  await db.transaction(async (trx) => {
    await trx('import_contents').where({ operation_uuid: uuid }).delete();
    if (op.status === 'pending') await trx('import_operations').where({ uuid }).update({ status: 'expired' });
  });
  return getOperation(db, accountName, uuid, artifactType);
}

export async function setOperationStatus(db: Db, uuid: string, status: ImportStatus): Promise<void> {
  await db('import_operations').where({ uuid }).update({ status });
}

/** Stores a part; its digest is the sha256 of its canonical bytes and names it in source.import. */
export async function storePart(
  db: Db,
  accountName: string,
  uuid: string,
  kind: ImportPartKind,
  value: unknown,
  artifactType: ImportArtifactType = 'image',
): Promise<{ digest: string; created_at: string }> {
  const op = await getOperation(db, accountName, uuid, artifactType);
  if (op.status !== 'pending') throw new ConflictError(`import operation '${uuid}' is ${op.status}; start a new one`, { operation_id: uuid, status: op.status });
  // Refuse what cannot be read now, not at analysis time.
  if (kind === 'packages' || kind === 'sbom') readSbomPackages(value);
  if (kind === 'sbom') readSbomImageMetadata(value);
  const bytes = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const created_at = nowIso();
  await db('import_contents')
    .insert({ operation_uuid: uuid, kind, digest, content: gzipSync(bytes), created_at })
    .onConflict(['operation_uuid', 'kind', 'digest'])
    .ignore();
  return { digest, created_at };
}

export async function listPartDigests(db: Db, accountName: string, uuid: string, kind: ImportPartKind, artifactType: ImportArtifactType = 'image'): Promise<string[]> {
  return (await listParts(db, accountName, uuid, kind, artifactType)).map((r) => r.digest);
}

/** The parts of a kind uploaded to an operation, oldest first. */
export async function listParts(db: Db, accountName: string, uuid: string, kind: ImportPartKind, artifactType: ImportArtifactType): Promise<{ digest: string; created_at: string }[]> {
  await getOperation(db, accountName, uuid, artifactType);
  return db('import_contents').where({ operation_uuid: uuid, kind }).orderBy([{ column: 'created_at' }, { column: 'digest' }]).select('digest', 'created_at');
}

/** One stored part, parsed (the Dockerfile as text), or undefined when the operation has no such part. */
export async function readStoredPart(db: Db, uuid: string, kind: ImportPartKind, digest: string): Promise<unknown> {
  const row = await db('import_contents').where({ operation_uuid: uuid, kind, digest }).first('content');
  if (!row) return undefined;
  const text = gunzipSync(row.content).toString('utf8');
  return kind === 'dockerfile' ? text : JSON.parse(text);
}

/** The parts an `sbom` part can stand in for. */
const SBOM_STANDS_IN_FOR: ReadonlySet<ImportPartKind> = new Set(['packages', 'manifest', 'image_config']);

function missingPart(uuid: string, kind: ImportPartKind, digest: string, why = 'names no uploaded part'): InvalidError {
  return new InvalidError(`import operation '${uuid}' has no ${kind} part with digest ${digest}`, { errors: [{ location: `body.source.import.contents.${kind}`, message: why }] });
}

/**
 * The parts `contents` names, as stored (JSON parts parsed, the Dockerfile as text), each read once; a digest of an
 * `sbom` part stands in for packages, manifest and image_config (see the file comment). Throws naming the first part
 * that is missing.
 */
export async function readImportParts(db: Db, uuid: string, contents: Partial<Record<ImportPartKind, string>>): Promise<Partial<Record<ImportPartKind, unknown>>> {
  const sboms = new Map<string, unknown>();
  const sbom = async (digest: string) => {
    if (!sboms.has(digest)) sboms.set(digest, await readStoredPart(db, uuid, 'sbom', digest));
    return sboms.get(digest);
  };
  const parts: Partial<Record<ImportPartKind, unknown>> = {};
  for (const [kind, digest] of Object.entries(contents) as [ImportPartKind, string | undefined][]) {
    if (!digest || kind === 'sbom') continue;
    const stored = await readStoredPart(db, uuid, kind, digest);
    if (stored !== undefined) {
      parts[kind] = stored;
      continue;
    }
    const doc = SBOM_STANDS_IN_FOR.has(kind) ? await sbom(digest) : undefined;
    if (doc === undefined) throw missingPart(uuid, kind, digest);
    if (kind === 'packages') parts.packages = doc;
    else {
      const carried = kind === 'manifest' ? readSbomImageMetadata(doc).manifest : readSbomImageMetadata(doc).config;
      if (!carried) throw missingPart(uuid, kind, digest, `names an SBOM that carries no ${kind === 'manifest' ? 'manifest' : 'image config'}`);
      parts[kind] = carried;
    }
  }
  // An SBOM named as the packages supplies the manifest and config it carries when the import names none.
  const packagesSbom = contents.packages ? sboms.get(contents.packages) : undefined;
  if (packagesSbom !== undefined && (!contents.manifest || !contents.image_config)) {
    const carried = readSbomImageMetadata(packagesSbom);
    if (!contents.manifest && carried.manifest) parts.manifest = carried.manifest;
    if (!contents.image_config && carried.config) parts.image_config = carried.config;
  }
  return parts;
}
