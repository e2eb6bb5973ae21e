/**
 * Splits OSV `affected[].package.ecosystem` strings into base ecosystem and release. Distribution feeds scope each
 * advisory to a release (`Debian:12`, `Alpine:v3.18`, `Ubuntu:22.04:LTS`) and the matcher must compare that release
 * with the image's distro, not the whole string. How each distribution writes its release is the distribution's
 * own (`feedRelease` in src/ecosystems/{dpkg,apk,rpm}/index.ts), next to the image side of the same key.
 */
import { distroFeedNamed } from '../../ecosystems/registry.js';
import type { OsvEcosystem } from './types.js';

/** The schema's ecosystem names, so that a feed writing `pypi` or `CRATES.IO` still lands on one spelling. */
const KNOWN_ECOSYSTEMS = [
  'AlmaLinux', 'Alpine', 'Android', 'Bioconductor', 'Bitnami', 'Chainguard', 'ConanCenter', 'CRAN', 'crates.io',
  'Debian', 'GHC', 'GitHub Actions', 'Go', 'Hackage', 'Hex', 'Linux', 'Mageia', 'Maven', 'npm', 'NuGet',
  'openEuler', 'OSS-Fuzz', 'openSUSE', 'Packagist', 'Photon OS', 'Pub', 'PyPI', 'Red Hat', 'Rocky Linux',
  'RubyGems', 'SUSE', 'SwiftURL', 'Ubuntu', 'Wolfi',
];
const CANONICAL = new Map(KNOWN_ECOSYSTEMS.map((name) => [name.toLowerCase(), name]));

/** Parses an ecosystem string. Total: an unknown base is kept as written, an empty suffix means no release. */
export function parseEcosystem(raw: string): OsvEcosystem {
  const colon = raw.indexOf(':');
  const base = (colon < 0 ? raw : raw.slice(0, colon)).trim();
  const suffix = colon < 0 ? '' : raw.slice(colon + 1).trim();
  const ecosystem = CANONICAL.get(base.toLowerCase()) ?? base;
  const parsed: OsvEcosystem = { ecosystem, raw };
  if (suffix === '') return parsed;
  // Maven's suffix is a repository URL, not a release.
  if (ecosystem === 'Maven') parsed.repository = suffix;
  else Object.assign(parsed, distroFeedNamed(ecosystem)?.feedRelease(suffix) ?? { release: suffix });
  return parsed;
}
