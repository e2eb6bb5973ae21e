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
/** Product names are short; longer suffixes are kept as written rather than fed to the patterns below. */
const MAX_PRODUCT_CHARS = 200;

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
    case 'Red Hat':
      parsed.release = redHatRelease(suffix);
      return parsed;
    case 'Rocky Linux':
    case 'AlmaLinux':
    case 'Mageia':
      // Scoped by major release (`Rocky Linux:9`, `Mageia:9`), as images of every minor release share one feed.
      parsed.release = /^\d+(\.\d+)*$/.test(suffix) ? suffix.split('.')[0]! : suffix;
      return parsed;
    case 'SUSE':
      parsed.release = suseRelease(suffix);
      return parsed;
    case 'openSUSE':
      parsed.release = openSuseRelease(suffix);
      return parsed;
    default:
      parsed.release = suffix;
      return parsed;
  }
}

/**
 * `22.04:LTS`, `Pro:18.04:LTS`, `Pro:FIPS-updates:22.04:LTS`, `Pro:22.04:LTS:Realtime:Kernel`: markers around a
 * YY.MM release. Plain Pro (ESM) continues the release's own archive (`+esm` versions sort above the standard
 * ones), so it shares the release key; other Pro services (FIPS, FIPS-updates, FIPS-preview, Realtime kernel)
 * ship builds of their own whose versions do not order against the standard ones, so they get a key of their own
 * (`22.04:FIPS-updates`) that no image release equals.
 */
function parseUbuntuSuffix(suffix: string): Pick<OsvEcosystem, 'release' | 'lts' | 'pro'> {
  const parts = suffix.split(':').filter((p) => p !== '');
  const out: Pick<OsvEcosystem, 'release' | 'lts' | 'pro'> = {};
  if (parts.includes('LTS')) out.lts = true;
  if (parts.includes('Pro')) out.pro = true;
  const rest = parts.filter((p) => p !== 'LTS' && p !== 'Pro');
  const numeric = rest.find((p) => /^\d+(\.\d+)*$/.test(p));
  const variant = rest.filter((p) => p !== numeric);
  const release = numeric === undefined ? rest.join(':') : [numeric, ...variant].join(':');
  if (release !== '') out.release = release;
  return out;
}

/**
 * Red Hat scopes records by product stream, a CPE without `cpe:/[oa]:redhat:`. The mainline RHEL streams
 * (`enterprise_linux:9::appstream`, `::baseos`, `::crb`, RHEL 7's `:7::server`, RHEL 10's minor-versioned
 * `enterprise_linux:10.0`) all describe the packages of that major release, so they share its key (`9`). Every other
 * stream (EUS/AUS/E4S/TUS/ELS such as `rhel_aus:8.4::appstream`, layered products such as `openshift:4.14::el9`) is
 * kept whole: os-release cannot tell that an image follows it, and its fixes land on branches of their own.
 */
function redHatRelease(cpe: string): string {
  if (cpe.length > MAX_PRODUCT_CHARS) return cpe;
  // Each `:`/`::` part needs a name after it, so the pattern cannot split a run of colons two ways (no backtracking blow-up).
  const mainline = /^enterprise_linux:(\d+)(?:\.\d+)?(?:::?[a-z0-9_]+)*$/i.exec(cpe);
  return mainline ? mainline[1]! : cpe;
}

/**
 * SUSE scopes records by product marketing name (os-release PRETTY_NAME without `SUSE `). On SLE the packages of
 * one service pack are filed under the product or module that ships them (`Linux Enterprise Server 15 SP5`,
 * `Linux Enterprise Module for Basesystem 15 SP5`, `... 15 SP5-LTSS`), all built from one code base, so every
 * `Linux Enterprise ...` product shares the key os-release's VERSION_ID gives (`15.5`; `12` for a release without a
 * service pack). SLE Micro (`Linux Enterprise Micro 5.5`, `Linux Micro 6.0`) is its own line (`micro-5.5`); other
 * products (Manager, Enterprise Storage, Package Hub, ...) are kept whole, matched by no image.
 */
function suseRelease(product: string): string {
  if (product.length > MAX_PRODUCT_CHARS) return product;
  const micro = /^Linux (?:Enterprise )?Micro (\d+(?:\.\d+)?)$/i.exec(product);
  if (micro) return `micro-${micro[1]}`;
  // The release is a word of its own (`15 SP5`); a product's own version (`Manager Server 4.3`) is not one.
  const sle = /^Linux Enterprise .*? (\d+)(?: SP(\d+))?(?:[- ][A-Z][A-Z-]*)?$/.exec(product);
  if (sle) return sle[2] === undefined ? sle[1]! : `${sle[1]}.${sle[2]}`;
  return product;
}

/**
 * openSUSE: `Leap 15.5` (and its `Leap 15.6 NonFree` repository) -> `leap-15.5`, `Leap Micro 5.5` ->
 * `leap-micro-5.5`, `Tumbleweed` -> `tumbleweed`; anything else kept whole.
 */
function openSuseRelease(product: string): string {
  if (product.length > MAX_PRODUCT_CHARS) return product;
  const leap = /^Leap (Micro )?(\d+\.\d+)(?: NonFree)?$/i.exec(product);
  if (leap) return `${leap[1] ? 'leap-micro' : 'leap'}-${leap[2]}`;
  return /^Tumbleweed$/i.test(product) ? 'tumbleweed' : product;
}
