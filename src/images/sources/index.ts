/** Image sources: registries (OCI Distribution API) and uploaded archives (docker save, OCI layout). */
export * from './errors.js';
export * from './references.js';
export * from './platforms.js';
export type { ImageConfig, HistoryEntry } from './image-config.js';
export type { Descriptor, ImageIndex, ImageManifest } from './manifests.js';
export type { ArchiveImage, ImageLayer, ImageSourceKind, ResolvedImage } from './resolved-image.js';
export { RegistryClient, checkCredentials, resolveImageReference } from './registry.js';
export type { Credentials, FetchedManifest, RegistryClientOptions, RegistryImage, ResolveOptions } from './registry.js';
export { readDockerArchive, type DockerArchiveOptions } from './docker-archive.js';
export { readOciLayout, type OciLayoutOptions } from './oci-layout.js';
export { readImageArchive, type ImageArchiveOptions } from './image-archive.js';
