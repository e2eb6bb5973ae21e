/** What syft writes into an OS package's purl that Vigil keeps elsewhere. */
import type { PackageURL } from 'packageurl-js';

/**
 * The source package of a deb or apk purl: syft writes it as an `upstream` qualifier (`glibc`, `glibc@2.36-9`, or
 * dpkg's `glibc (2.36-9)`), with the source version when it differs from the binary's.
 */
export function osOriginFromPurl(purl: PackageURL | undefined): { origin?: string; sourceVersion?: string } {
  const upstream = purl?.qualifiers?.['upstream'];
  if (!upstream) return {};
  const match = /^([^@\s(]+)(?:@([^\s]+)|\s*\(([^)]+)\))?$/.exec(upstream.trim());
  if (!match) return { origin: upstream };
  const sourceVersion = match[2] ?? match[3];
  return { origin: match[1], ...(sourceVersion ? { sourceVersion } : {}) };
}
