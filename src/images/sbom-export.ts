/** Assembles the SBOM writers' input from a stored analysis. */
import type { Db } from '../db/index.js';
import type { DistroInfo } from '../ecosystems/model.js';
import type { SbomInput } from './sbom/input.js';
import { readFileList } from './file-list.js';
import * as store from './store.js';

export async function sbomInputOf(db: Db, image: store.ImageRecord, toolVersion: string, withFiles: boolean): Promise<SbomInput> {
  const scope = [image.account_name, image.image_digest] as const;
  const [packages, tags, layers, config, files] = await Promise.all([
    store.packagesOf(db, ...scope),
    store.tagsOf(db, image.account_name, [image.image_digest]),
    store.readDocument<{ digest: string; size: number; media_type: string }[]>(db, ...scope, 'layers'),
    store.readDocument<{ created?: string }>(db, ...scope, 'config'),
    withFiles ? readFileList(db, ...scope) : Promise.resolve(undefined),
  ]);
  const imageTags = tags.get(image.image_digest) ?? [];
  // Current tags first, newest first: the first names the image in documents.
  const ordered = [...imageTags.filter((t) => t.current), ...imageTags.filter((t) => !t.current)].map((t) => t.full_tag);
  const distro: DistroInfo | undefined = image.distro ? { name: image.distro, version: image.distro_version ?? '', like: [] } : undefined;
  return {
    image: {
      digest: image.image_digest,
      imageId: image.image_id,
      tags: [...new Set(ordered)],
      arch: image.arch,
      ...(distro ? { distro } : {}),
      createdAt: config?.created ?? null,
      layers: layers ?? [],
    },
    packages: packages.map((p) => ({ ...p, sourceVersion: p.source_version })),
    ...(files ? { files } : {}),
    toolVersion,
    analyzedAt: image.analyzed_at,
  };
}
