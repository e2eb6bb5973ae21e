/**
 * Reads an uploaded image archive without being told its format: `docker save` output (manifest.json) or an
 * OCI image layout (index.json). Archives from docker 25+ are both; manifest.json is preferred there because it
 * carries the RepoTags.
 */
import { openArchiveFiles } from './archive-files.js';
import { dockerArchiveImage } from './docker-archive.js';
import { ArchiveEntryMissingError } from './errors.js';
import { ociLayoutImage } from './oci-layout.js';
import type { OpenArchiveOptions } from './archive-files.js';
import type { Platform } from './platforms.js';
import type { ArchiveImage } from './resolved-image.js';

export interface ImageArchiveOptions extends OpenArchiveOptions {
  /** Picks one image of a multi-image archive by tag (docker save) or ref name (OCI layout). */
  name?: string;
  /** Platform to pick from an OCI index (default linux/amd64, or the only image there is). */
  platform?: Platform;
}

export async function readImageArchive(path: string, options: ImageArchiveOptions = {}): Promise<ArchiveImage> {
  const files = await openArchiveFiles(path, options);
  try {
    let image: Omit<ArchiveImage, 'close'>;
    if ((await files.size('manifest.json')) !== undefined) {
      image = await dockerArchiveImage(files, { tag: options.name });
    } else if ((await files.size('index.json')) !== undefined) {
      image = await ociLayoutImage(files, { refName: options.name, platform: options.platform });
    } else {
      throw new ArchiveEntryMissingError(
        'manifest.json or index.json',
        'the upload is neither a `docker save` archive nor an OCI image layout',
      );
    }
    return { ...image, close: () => files.close() };
  } catch (err) {
    await files.close();
    throw err;
  }
}
