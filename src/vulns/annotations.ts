/**
 * Vulnerability annotations: an account's VEX statements about an image — a vulnerability's status for the whole
 * image or for one package of it, with the justification or the action taken. They show on the image's
 * vulnerabilities and make up its VEX exports.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { getImage } from '../images/store.js';
import { nowIso } from '../util/time.js';
import type { VexJustification, VexStatus } from './vex/types.js';

export interface AnnotationRecord {
  uuid: string;
  account_name: string;
  image_digest: string;
  vulnerability_id: string;
  package_name: string | null;
  package_version: string | null;
  package_type: string | null;
  status: VexStatus;
  justification: VexJustification | null;
  status_notes: string | null;
  impact_statement: string | null;
  action_statement: string | null;
  additional_details: string | null;
  author: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface AnnotationStatement {
  vulnerability_id: string;
  status: VexStatus;
  justification?: VexJustification | null;
  status_notes?: string | null;
  impact_statement?: string | null;
  action_statement?: string | null;
  additional_details?: string | null;
}

export interface AnnotationTarget {
  package_name?: string | null;
  package_version?: string | null;
  package_type?: string | null;
}

export interface AnnotationFilter {
  vulnerability_id?: string;
  package_name?: string;
  package_version?: string;
  package_type?: string;
}

/** VEX's rules for a status: not_affected must say why. */
function checkStatement(s: AnnotationStatement): void {
  if (s.status === 'not_affected' && !s.justification && !s.impact_statement?.trim())
    throw new InvalidError('a not_affected annotation needs a justification or an impact_statement', { field: 'justification' });
  if (s.justification && s.status !== 'not_affected' && s.justification !== 'fix_not_planned')
    throw new InvalidError(`justification '${s.justification}' only applies to status not_affected`, { field: 'justification', status: s.status });
}

function statementColumns(s: AnnotationStatement) {
  return {
    vulnerability_id: s.vulnerability_id.trim(),
    status: s.status,
    justification: s.justification ?? null,
    status_notes: s.status_notes ?? null,
    impact_statement: s.impact_statement ?? null,
    action_statement: s.action_statement ?? null,
    additional_details: s.additional_details ?? null,
  };
}

export async function listAnnotations(db: Db, accountName: string, digest: string, filter: AnnotationFilter = {}): Promise<AnnotationRecord[]> {
  await getImage(db, accountName, digest);
  const q = db<AnnotationRecord>('vuln_annotations').where({ account_name: accountName, image_digest: digest });
  for (const [key, value] of Object.entries(filter)) if (value !== undefined) q.andWhere(key, value);
  return q.orderBy(['vulnerability_id', 'created_at', 'uuid']).select('*');
}

export async function getAnnotation(db: Db, accountName: string, digest: string, uuid: string): Promise<AnnotationRecord> {
  const row = await db<AnnotationRecord>('vuln_annotations').where({ account_name: accountName, image_digest: digest, uuid }).first();
  if (!row) {
    await getImage(db, accountName, digest);
    throw new NotFoundError(`no vulnerability annotation '${uuid}' on image '${digest}'`, { vuln_annotation_uuid: uuid });
  }
  return row;
}

export async function createAnnotation(
  db: Db,
  accountName: string,
  digest: string,
  input: AnnotationStatement & AnnotationTarget,
  author: string,
): Promise<AnnotationRecord> {
  checkStatement(input);
  await getImage(db, accountName, digest);
  const target = {
    package_name: input.package_name ?? null,
    package_version: input.package_version ?? null,
    package_type: input.package_type ?? null,
  };
  if (!target.package_name && (target.package_version || target.package_type))
    throw new InvalidError('package_version and package_type need a package_name', { field: 'package_name' });
  const columns = statementColumns(input);
  const clash = await db('vuln_annotations')
    .where({ account_name: accountName, image_digest: digest, vulnerability_id: columns.vulnerability_id })
    .andWhere((w) => {
      for (const [k, v] of Object.entries(target)) v === null ? w.whereNull(k) : w.where(k, v);
    })
    .first('uuid');
  if (clash)
    throw new ConflictError(`vulnerability ${columns.vulnerability_id} already has an annotation for this target; update ${clash.uuid} instead`, {
      vuln_annotation_uuid: clash.uuid,
    });
  const now = nowIso();
  const record: AnnotationRecord = {
    uuid: randomUUID(),
    account_name: accountName,
    image_digest: digest,
    ...target,
    ...columns,
    author,
    version: 1,
    created_at: now,
    updated_at: now,
  };
  await db('vuln_annotations').insert(record);
  return record;
}

export async function updateAnnotation(db: Db, accountName: string, digest: string, uuid: string, input: AnnotationStatement): Promise<AnnotationRecord> {
  checkStatement(input);
  const before = await getAnnotation(db, accountName, digest, uuid);
  const changes = { ...statementColumns(input), version: before.version + 1, updated_at: nowIso() };
  // The version guards against two concurrent updates both winning.
  const n = await db('vuln_annotations').where({ uuid, version: before.version }).update(changes);
  if (n === 0) throw new ConflictError(`annotation '${uuid}' was changed concurrently; read it again and retry`, { vuln_annotation_uuid: uuid });
  return { ...before, ...changes };
}

export async function deleteAnnotation(db: Db, accountName: string, digest: string, uuid: string): Promise<void> {
  await getAnnotation(db, accountName, digest, uuid);
  await db('vuln_annotations').where({ account_name: accountName, image_digest: digest, uuid }).delete();
}

/**
 * The annotation that applies to a vulnerability of a package: the most specific one (type and version, then
 * name only, then the whole image). Aliases count: an annotation on a CVE covers the distro advisory for it.
 */
export function applicableAnnotation(
  annotations: AnnotationRecord[],
  vulnIds: string[],
  pkg: { name: string; version: string; type: string },
): AnnotationRecord | undefined {
  let best: AnnotationRecord | undefined;
  let bestScore = -1;
  for (const a of annotations) {
    if (!vulnIds.includes(a.vulnerability_id)) continue;
    if (a.package_name && a.package_name !== pkg.name) continue;
    if (a.package_version && a.package_version !== pkg.version) continue;
    if (a.package_type && a.package_type !== pkg.type) continue;
    const score = (a.package_name ? 1 : 0) + (a.package_version ? 2 : 0) + (a.package_type ? 1 : 0) + (a.vulnerability_id === vulnIds[0] ? 0.5 : 0);
    if (score > bestScore) {
      best = a;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The API shape (upstream's PackageVulnerabilityAnnotation): the statement, and the package it is about with the
 * fields the annotation names (null for the whole image).
 */
export function annotationView(a: AnnotationRecord) {
  const { account_name: _account, image_digest, package_name, package_version, package_type, ...annotation } = a;
  const package_identifier = package_name
    ? { name: package_name, ...(package_version ? { version: package_version } : {}), ...(package_type ? { type: package_type } : {}) }
    : null;
  return { annotation, package_identifier, image_digest };
}
