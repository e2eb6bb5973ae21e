/** Media types of image manifests, indexes, configs and layers (OCI image-spec and Docker schema 2). */

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const OCI_CONFIG = 'application/vnd.oci.image.config.v1+json';
export const OCI_LAYER_TAR = 'application/vnd.oci.image.layer.v1.tar';
export const OCI_LAYER_GZIP = 'application/vnd.oci.image.layer.v1.tar+gzip';
export const OCI_LAYER_ZSTD = 'application/vnd.oci.image.layer.v1.tar+zstd';

export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
export const DOCKER_CONFIG = 'application/vnd.docker.container.image.v1+json';
export const DOCKER_LAYER_GZIP = 'application/vnd.docker.image.rootfs.diff.tar.gzip';
export const DOCKER_FOREIGN_LAYER_GZIP = 'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip';

export const DOCKER_SCHEMA1_MANIFEST = 'application/vnd.docker.distribution.manifest.v1+json';
export const DOCKER_SCHEMA1_SIGNED_MANIFEST = 'application/vnd.docker.distribution.manifest.v1+prettyjws';

export const IMAGE_MANIFEST_TYPES: ReadonlySet<string> = new Set([OCI_MANIFEST, DOCKER_MANIFEST]);
export const INDEX_TYPES: ReadonlySet<string> = new Set([OCI_INDEX, DOCKER_MANIFEST_LIST]);
export const CONFIG_TYPES: ReadonlySet<string> = new Set([OCI_CONFIG, DOCKER_CONFIG]);
export const SCHEMA1_TYPES: ReadonlySet<string> = new Set([DOCKER_SCHEMA1_MANIFEST, DOCKER_SCHEMA1_SIGNED_MANIFEST]);

/** What we ask registries for, most preferred first. */
export const MANIFEST_ACCEPT = [OCI_INDEX, DOCKER_MANIFEST_LIST, OCI_MANIFEST, DOCKER_MANIFEST].join(', ');

/** `application/json; charset=utf-8` -> `application/json`. */
export function baseMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
