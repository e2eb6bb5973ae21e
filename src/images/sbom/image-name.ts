/** How documents name the image: by its first tag when it has one, else by digest, plus its OCI package URL. */
import { purl } from '../../ecosystems/shared/identifiers.js';
import type { SbomImage } from './input.js';

export function imageDisplayName(image: SbomImage): string {
  return image.tags[0] ?? image.digest;
}

/** `registry/repo:tag` -> repository and tag; the tag colon is the last one after the last slash (ports have colons too). */
export function splitTag(fullTag: string): { repository: string; tag?: string } {
  const slash = fullTag.lastIndexOf('/');
  const colon = fullTag.lastIndexOf(':');
  return colon > slash ? { repository: fullTag.slice(0, colon), tag: fullTag.slice(colon + 1) } : { repository: fullTag };
}

/**
 * `pkg:oci/<name>@<digest>?arch=..&repository_url=..&tag=..` (purl-spec's oci type), from the first tag. Without a
 * tag there is no repository to name, so no purl.
 */
export function imagePurl(image: SbomImage): string | undefined {
  const first = image.tags[0];
  if (!first) return undefined;
  const { repository, tag } = splitTag(first);
  const name = repository.slice(repository.lastIndexOf('/') + 1).toLowerCase();
  try {
    return purl('oci', undefined, name, image.digest, { arch: image.arch ?? undefined, repository_url: repository, tag });
  } catch {
    return undefined; // a repository name purl cannot hold: the image is still named by tag and digest
  }
}
