/**
 * Vigil's native SBOM: the shape of syft's JSON (artifacts, artifactRelationships, files, source, distro,
 * descriptor, schema) so tools that read syft JSON can read it, plus Vigil's own `origin`, `sourceVersion` and
 * `size` on artifacts. An owned language package has syft's ownership-by-file-overlap relationship to its owner. Key order, artifact order and ids are fixed by the input alone.
 */
import type { FileRecord, FileType } from '../model.js';
import { imageDisplayName } from './image-name.js';
import type { SbomInput, SbomPackage } from './input.js';
import { classifyLicense } from './licenses.js';
import { ownerLinks, OWNERSHIP_RELATIONSHIP } from './ownership-links.js';
import { compareStrings, identifyPackages } from './package-ids.js';
import { typeNames } from './package-types.js';
import { contentId } from './stable-ids.js';

export const NATIVE_SCHEMA_VERSION = '1.0.0';
/** Names the format; `.invalid` because nothing is published there (yet) and a reader must not try to fetch it. */
export const NATIVE_SCHEMA_URL = `https://vigil.invalid/schema/sbom/native-${NATIVE_SCHEMA_VERSION}.json`;

export interface NativeArtifact {
  id: string;
  name: string;
  version: string;
  type: string;
  foundBy: string;
  locations: { path: string }[];
  licenses: { value: string; spdxExpression: string; type: 'declared' }[];
  language: string;
  cpes: { cpe: string; source: string }[];
  purl: string;
  origin?: string;
  sourceVersion?: string;
  size?: number;
  metadata: Record<string, unknown>;
}

export interface NativeRelationship {
  parent: string;
  child: string;
  type: 'contains' | 'evident-by' | typeof OWNERSHIP_RELATIONSHIP;
  /** Ownership only: the owned package's locations, which the owner's file list holds (syft: the overlapping files). */
  metadata?: { files: string[] };
}

export interface NativeFile {
  id: string;
  location: { path: string };
  metadata: { mode: number; type: string; userID: number; groupID: number; size: number; linkDestination?: string };
  digests?: { algorithm: 'sha256'; value: string }[];
}

export interface NativeSbom {
  artifacts: NativeArtifact[];
  artifactRelationships: NativeRelationship[];
  files?: NativeFile[];
  source: {
    id: string;
    type: 'image';
    target: {
      userInput: string;
      imageID: string;
      manifestDigest: string;
      tags: string[];
      imageSize: number;
      layers: { mediaType: string; digest: string; size: number }[];
      architecture: string;
      created?: string;
    };
  };
  /** Empty when the distro is unknown, as syft writes it. */
  distro: { name: string; version: string; idLike: string[]; prettyName?: string } | Record<string, never>;
  descriptor: { name: 'vigil'; version: string };
  schema: { version: string; url: string };
}

function artifact(id: string, p: SbomPackage): NativeArtifact {
  const names = typeNames(p.type);
  return {
    id,
    name: p.name,
    version: p.version,
    type: names.syft,
    foundBy: names.foundBy,
    locations: p.locations.map((path) => ({ path })),
    licenses: p.licenses.flatMap((value) => {
      const choice = classifyLicense(value);
      if (!choice) return [];
      const spdxExpression = choice.kind === 'id' ? choice.id : choice.kind === 'expression' ? choice.expression : '';
      return [{ value, spdxExpression, type: 'declared' as const }];
    }),
    language: names.language,
    cpes: p.cpes.map((cpe) => ({ cpe, source: 'vigil' })),
    purl: p.purl,
    ...(p.origin ? { origin: p.origin } : {}),
    ...(p.sourceVersion ? { sourceVersion: p.sourceVersion } : {}),
    ...(typeof p.size === 'number' ? { size: p.size } : {}),
    metadata: p.metadata,
  };
}

/** syft's names for file types. */
const FILE_TYPES: Record<FileType, string> = {
  file: 'RegularFile',
  dir: 'Directory',
  symlink: 'SymbolicLink',
  hardlink: 'HardLink',
  char: 'CharacterDevice',
  block: 'BlockDevice',
  fifo: 'FIFONode',
};

const fileId = (path: string) => contentId(['file', path]);

function nativeFile(f: FileRecord): NativeFile {
  return {
    id: fileId(f.path),
    location: { path: f.path },
    metadata: {
      // syft writes the octal digits read as decimal (0o4755 -> 4755), which is what people expect to see.
      mode: Number((f.mode & 0o7777).toString(8)),
      type: FILE_TYPES[f.type] ?? f.type,
      userID: f.uid,
      groupID: f.gid,
      size: f.size,
      ...(f.linkTarget !== undefined ? { linkDestination: f.linkTarget } : {}),
    },
    ...(f.sha256 ? { digests: [{ algorithm: 'sha256' as const, value: f.sha256 }] } : {}),
  };
}

export function toNativeSbom(input: SbomInput): NativeSbom {
  const { image } = input;
  const sourceId = contentId(['image', image.digest]);
  const packages = identifyPackages(input.packages);
  const files = input.files ? [...input.files].sort((a, b) => compareStrings(a.path, b.path)) : undefined;
  const filePaths = new Set(files?.map((f) => f.path));

  const relationships: NativeRelationship[] = [];
  for (const { id, pkg } of packages) {
    relationships.push({ parent: sourceId, child: id, type: 'contains' });
    // The database or manifest a package was read from is its evidence (syft's evident-by), when files are listed.
    for (const path of new Set(pkg.locations))
      if (filePaths.has(path)) relationships.push({ parent: id, child: fileId(path), type: 'evident-by' });
  }
  for (const { ownerId, child } of ownerLinks(packages))
    relationships.push({ parent: ownerId, child: child.id, type: OWNERSHIP_RELATIONSHIP, metadata: { files: [...child.pkg.locations] } });

  const distro = image.distro;
  return {
    artifacts: packages.map(({ id, pkg }) => artifact(id, pkg)),
    artifactRelationships: relationships,
    ...(files ? { files: files.map(nativeFile) } : {}),
    source: {
      id: sourceId,
      type: 'image',
      target: {
        userInput: imageDisplayName(image),
        imageID: image.imageId ?? '',
        manifestDigest: image.digest,
        tags: [...image.tags],
        imageSize: image.layers.reduce((n, l) => n + l.size, 0),
        layers: image.layers.map((l) => ({ mediaType: l.media_type, digest: l.digest, size: l.size })),
        architecture: image.arch ?? '',
        ...(image.createdAt ? { created: image.createdAt } : {}),
      },
    },
    distro: distro
      ? { name: distro.name, version: distro.version, idLike: [...distro.like], ...(distro.prettyName ? { prettyName: distro.prettyName } : {}) }
      : {},
    descriptor: { name: 'vigil', version: input.toolVersion },
    schema: { version: NATIVE_SCHEMA_VERSION, url: NATIVE_SCHEMA_URL },
  };
}
