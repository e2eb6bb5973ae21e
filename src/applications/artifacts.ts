/**
 * The artifacts of an application version: associating an image (by digest) or a source (by id), which must exist
 * in the caller's account, and reading the associations back with their artifacts. An association whose artifact
 * has since been deleted is left out of every answer (see migration 041).
 */
import type { Db } from '../db/index.js';
import { InvalidError } from '../errors.js';
import { findImages, getImage, type ImageRecord } from '../images/store.js';
import { findSources, getSource, type SourceRecord } from '../sources/store.js';
import * as store from './store.js';

export interface ArtifactAssociationInput {
  artifact_type: string;
  artifact_keys: Record<string, unknown>;
}

export interface VersionArtifacts {
  images: { association: store.ArtifactAssociationRecord; image: ImageRecord }[];
  sources: { association: store.ArtifactAssociationRecord; source: SourceRecord }[];
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const UUID = /^[0-9a-f-]{36}$/;

/** The key that names an artifact of each type, and what a valid value looks like. */
const KEYS: Record<store.ArtifactType, { key: string; pattern: RegExp }> = {
  image: { key: 'image_digest', pattern: DIGEST },
  source: { key: 'source_id', pattern: UUID },
};

function artifactIdOf(input: ArtifactAssociationInput): { type: store.ArtifactType; id: string } {
  const type = input.artifact_type as store.ArtifactType;
  const spec = KEYS[type];
  if (!spec) throw new InvalidError(`artifact_type must be one of ${Object.keys(KEYS).join(', ')}`, { artifact_type: input.artifact_type });
  const value = input.artifact_keys[spec.key];
  if (typeof value !== 'string' || !spec.pattern.test(value))
    throw new InvalidError(`an ${type} artifact is named by artifact_keys.${spec.key} (${spec.pattern.source})`, { artifact_keys: input.artifact_keys });
  return { type, id: value };
}

/** Associates the artifact the request names with the version; the artifact must exist in the account. */
export async function associateArtifact(db: Db, accountName: string, version: store.ApplicationVersionRecord, input: ArtifactAssociationInput): Promise<store.ArtifactAssociationRecord> {
  const { type, id } = artifactIdOf(input);
  if (type === 'image') await getImage(db, accountName, id);
  else await getSource(db, accountName, id);
  return store.insertAssociation(db, version, accountName, type, id);
}

export async function versionArtifacts(db: Db, accountName: string, version: store.ApplicationVersionRecord): Promise<VersionArtifacts> {
  const associations = await store.associationsOf(db, version);
  const idsOf = (type: store.ArtifactType) => associations.filter((a) => a.artifact_type === type).map((a) => a.artifact_id);
  const images = new Map((await findImages(db, accountName, idsOf('image'))).map((i) => [i.image_digest, i]));
  const sources = new Map((await findSources(db, accountName, idsOf('source'))).map((s) => [s.source_id, s]));
  const result: VersionArtifacts = { images: [], sources: [] };
  for (const association of associations) {
    const image = association.artifact_type === 'image' ? images.get(association.artifact_id) : undefined;
    const source = association.artifact_type === 'source' ? sources.get(association.artifact_id) : undefined;
    if (image) result.images.push({ association, image });
    if (source) result.sources.push({ association, source });
  }
  return result;
}
