/**
 * Splits OSV `affected[].package.ecosystem` strings into base ecosystem and release. Distribution feeds scope each
 * advisory to a release (`Debian:12`, `Alpine:v3.18`, `Ubuntu:22.04:LTS`) and the matcher must compare that release
 * with the image's distro, not the whole string.
 */
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

  switch (ecosystem) {
    case 'Maven':
      // Maven's suffix is a repository URL, not a release.
      parsed.repository = suffix;
      return parsed;
    case 'Alpine':
      // The schema requires `v3.18`; os-release and feed groups say `3.18`.
      parsed.release = suffix.replace(/^v(?=\d)/, '');
      return parsed;
    case 'Ubuntu':
      return { ...parsed, ...parseUbuntuSuffix(suffix) };
    default:
      parsed.release = suffix;
      return parsed;
  }
}

/** `22.04:LTS`, `Pro:18.04:LTS`, `Pro:FIPS-updates:22.04:LTS`: markers around a YY.MM release. */
function parseUbuntuSuffix(suffix: string): Pick<OsvEcosystem, 'release' | 'lts' | 'pro'> {
  const parts = suffix.split(':').filter((p) => p !== '');
  const out: Pick<OsvEcosystem, 'release' | 'lts' | 'pro'> = {};
  if (parts.includes('LTS')) out.lts = true;
  if (parts.includes('Pro')) out.pro = true;
  const rest = parts.filter((p) => p !== 'LTS' && p !== 'Pro');
  const numeric = rest.find((p) => /^\d+(\.\d+)*$/.test(p));
  const release = numeric ?? rest.join(':');
  if (release !== '') out.release = release;
  return out;
}
