/**
 * Platforms (os/architecture/variant) and the choice of one image from an index or manifest list, with the
 * normalisation containerd applies so that `linux/aarch64` finds `linux/arm64` and `arm64/v8` equals `arm64`.
 */
import { ImageReferenceError, PlatformNotFoundError } from './errors.js';
import type { Descriptor } from './manifests.js';

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export const DEFAULT_PLATFORM: Platform = { os: 'linux', architecture: 'amd64' };

const ARCH_ALIASES: Record<string, string> = {
  x86_64: 'amd64',
  'x86-64': 'amd64',
  aarch64: 'arm64',
  i386: '386',
  i686: '386',
  armhf: 'arm',
  armel: 'arm',
};

/** Variants that mean "the default variant of this architecture", so requesting none matches them. */
const DEFAULT_VARIANTS: Record<string, string> = { arm64: 'v8', arm: 'v7' };

/** Annotation buildx puts on attestation manifests inside an index; they are not runnable images. */
const REFERENCE_TYPE_ANNOTATION = 'vnd.docker.reference.type';

export function normalizePlatform(p: Platform): Platform {
  const os = p.os.toLowerCase();
  const architecture = ARCH_ALIASES[p.architecture.toLowerCase()] ?? p.architecture.toLowerCase();
  const variant = p.variant?.toLowerCase() || undefined;
  return { os, architecture, ...(variant ? { variant } : {}) };
}

/** `linux/arm64/v8` -> {os, architecture, variant}. */
export function parsePlatform(s: string): Platform {
  const parts = s.trim().split('/');
  if (parts.length < 2 || parts.length > 3 || parts.some((x) => !/^[A-Za-z0-9_.-]+$/.test(x))) {
    throw new ImageReferenceError(`invalid platform ${JSON.stringify(s)}: expected os/architecture[/variant], e.g. linux/arm64`, s);
  }
  return normalizePlatform({ os: parts[0]!, architecture: parts[1]!, ...(parts[2] ? { variant: parts[2] } : {}) });
}

export function formatPlatform(p: Platform): string {
  return `${p.os}/${p.architecture}${p.variant ? `/${p.variant}` : ''}`;
}

function isAttestation(d: Descriptor): boolean {
  return d.annotations?.[REFERENCE_TYPE_ANNOTATION] !== undefined || d.platform?.os === 'unknown';
}

function variantMatches(candidate: Platform, wanted: Platform): boolean {
  const def = DEFAULT_VARIANTS[wanted.architecture];
  const c = candidate.variant ?? def;
  const w = wanted.variant ?? def;
  return c === w;
}

/**
 * Picks the descriptor for `requested` from an index's entries. Without an explicit request the default
 * linux/amd64 is preferred, and an index holding exactly one runnable image yields that image whatever its
 * platform (an arm64-only image is still analysable). An explicit request must match.
 */
export function selectPlatformManifest(entries: Descriptor[], requested?: Platform): Descriptor {
  const images = entries.filter((d) => !isAttestation(d));
  const wanted = normalizePlatform(requested ?? DEFAULT_PLATFORM);
  const sameArch = images.filter((d) => {
    if (!d.platform) return false;
    const p = normalizePlatform(d.platform);
    return p.os === wanted.os && p.architecture === wanted.architecture;
  });
  const exact = sameArch.find((d) => variantMatches(normalizePlatform(d.platform!), wanted));
  if (exact) return exact;
  // No variant asked for: any variant of the architecture will do (e.g. arm/v6 when only that exists).
  if (!wanted.variant && sameArch.length > 0) return sameArch[0]!;
  if (!requested && images.length === 1) return images[0]!;
  throw new PlatformNotFoundError(
    formatPlatform(wanted),
    images.map((d) => (d.platform ? formatPlatform(normalizePlatform(d.platform)) : `unspecified (${d.digest})`)),
  );
}

/**
 * For an image reached without an index: a single-platform image would answer any platform request, so an
 * explicit request it does not satisfy is refused rather than the wrong image analysed.
 */
export function checkRequestedPlatform(requested: Platform | undefined, actual: Platform): void {
  if (!requested) return;
  const want = normalizePlatform(requested);
  const have = normalizePlatform(actual);
  if (want.os !== have.os || want.architecture !== have.architecture) {
    throw new PlatformNotFoundError(formatPlatform(want), [formatPlatform(have)]);
  }
}
