/**
 * Image references (`nginx:1.25`, `ghcr.io/org/app@sha256:...`) parsed the way the docker CLI does, so a name
 * typed by a user means what it means to `docker pull`. Grammar: github.com/distribution/reference.
 */
import { ImageReferenceError } from './errors.js';

export interface ImageReference {
  /** Registry host[:port], normalised: Docker Hub is always `docker.io`. */
  registry: string;
  /** Repository path; Docker Hub official images get the `library/` prefix. */
  repository: string;
  /** Tag; `latest` when the reference names neither tag nor digest. */
  tag?: string;
  /** Digest (`algorithm:hex`); when present it decides what is resolved, the tag is informational. */
  digest?: string;
}

export const DOCKER_HUB = 'docker.io';
/** Docker Hub serves the distribution API on a different host than its name. */
const DOCKER_HUB_API_HOST = 'registry-1.docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN_LABEL = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = new RegExp(`^(?:${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]{1,5})?$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const KNOWN_DIGEST_HEX: Record<string, number> = { sha256: 64, sha512: 128 };
const MAX_NAME_LENGTH = 255;

/** Throws unless `digest` is a well-formed digest; sha256/sha512 must be lowercase hex of the right length. */
export function validateDigest(digest: string, reference = digest): void {
  if (!DIGEST.test(digest)) {
    throw new ImageReferenceError(`invalid digest ${JSON.stringify(digest)}: expected algorithm:hex, e.g. sha256:<64 hex digits>`, reference);
  }
  const [algorithm, hex] = digest.split(':') as [string, string];
  const length = KNOWN_DIGEST_HEX[algorithm];
  if (length !== undefined && !new RegExp(`^[a-f0-9]{${length}}$`).test(hex)) {
    throw new ImageReferenceError(`invalid ${algorithm} digest: expected ${length} lowercase hex digits`, reference);
  }
}

export function validateTag(tag: string, reference = tag): void {
  if (!TAG.test(tag)) {
    throw new ImageReferenceError(
      `invalid tag ${JSON.stringify(tag)}: up to 128 letters, digits, '_', '.' or '-', not starting with '.' or '-'`,
      reference,
    );
  }
}

/** Throws unless `path` is a valid repository path (lowercase components separated by '/'). */
export function validateRepository(path: string, reference = path): void {
  if (path === '') throw new ImageReferenceError('image reference has no repository name', reference);
  if (path !== path.toLowerCase()) {
    throw new ImageReferenceError(`repository name ${JSON.stringify(path)} must be lowercase`, reference);
  }
  for (const component of path.split('/')) {
    if (!PATH_COMPONENT.test(component)) {
      throw new ImageReferenceError(
        `invalid repository path component ${JSON.stringify(component)}: use lowercase letters and digits, separated by '.', '_', '__' or '-'`,
        reference,
      );
    }
  }
}

/** True when a manifest reference is a digest rather than a tag. */
export function isDigestReference(reference: string): boolean {
  return reference.includes(':');
}

/** True when the first path component names a registry rather than a Docker Hub namespace (docker's rule). */
function looksLikeRegistry(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost';
}

export function parseImageReference(input: string): ImageReference {
  const s = input.trim();
  if (s === '') throw new ImageReferenceError('image reference is empty', input);
  if (/\s/.test(s)) throw new ImageReferenceError('image reference must not contain whitespace', input);

  let rest = s;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    validateDigest(digest, input);
  }

  // The tag separator is a ':' after the last '/', so a registry port (`host:5000/x`) is not taken for a tag.
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    validateTag(tag, input);
  }

  let registry = DOCKER_HUB;
  let path = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0 && looksLikeRegistry(rest.slice(0, slash))) {
    registry = rest.slice(0, slash);
    path = rest.slice(slash + 1);
    if (!DOMAIN.test(registry)) throw new ImageReferenceError(`invalid registry host ${JSON.stringify(registry)}`, input);
    if (DOCKER_HUB_ALIASES.has(registry.toLowerCase())) registry = DOCKER_HUB;
  }

  validateRepository(path, input);
  if (registry === DOCKER_HUB && !path.includes('/')) path = `library/${path}`;
  if (`${registry}/${path}`.length > MAX_NAME_LENGTH) {
    throw new ImageReferenceError(`image name is longer than ${MAX_NAME_LENGTH} characters`, input);
  }

  if (tag === undefined && digest === undefined) tag = 'latest';
  return { registry, repository: path, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

/** Host[:port] that serves the distribution API for a registry name. */
export function registryApiHost(registry: string): string {
  return registry === DOCKER_HUB ? DOCKER_HUB_API_HOST : registry;
}

/** `registry/repository`, e.g. `docker.io/library/nginx`. */
export function fullName(ref: Pick<ImageReference, 'registry' | 'repository'>): string {
  return `${ref.registry}/${ref.repository}`;
}

/** `registry/repository:tag`; `tag` overrides the reference's own. Throws when there is no tag at all. */
export function fullTag(ref: Pick<ImageReference, 'registry' | 'repository' | 'tag'>, tag = ref.tag): string {
  if (!tag) throw new ImageReferenceError('reference has no tag', fullName(ref));
  return `${fullName(ref)}:${tag}`;
}

/** `registry/repository@digest`; pass the resolved manifest digest to pin a tag reference. */
export function fullDigest(ref: Pick<ImageReference, 'registry' | 'repository' | 'digest'>, digest = ref.digest): string {
  if (!digest) throw new ImageReferenceError('reference has no digest', fullName(ref));
  return `${fullName(ref)}@${digest}`;
}

/** The canonical string of a reference: name, then `:tag` and/or `@digest` as present. */
export function formatImageReference(ref: ImageReference): string {
  return `${fullName(ref)}${ref.tag ? `:${ref.tag}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}
