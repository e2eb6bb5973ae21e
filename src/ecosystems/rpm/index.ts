/**
 * Red Hat-family and SUSE packages: rpm's database; Red Hat, Rocky Linux, AlmaLinux, SUSE, openSUSE and Mageia
 * advisories.
 */
import { distroQualifier } from '../distro.js';
import { osEcosystem, type Ecosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { distroFeed, majorFeedRelease, MAX_PRODUCT_CHARS, versionParts, type DistroFeed, type FeedRelease } from '../shared/lookup.js';
import type { OwnershipKey } from '../shared/ownership-keys.js';
import { createRpmCataloger, sourceRpmName } from './cataloger.js';
import { rpmComparator } from './versions.js';

const major = (d: Parameters<DistroFeed['release']>[0]) => versionParts(d, 1);

/**
 * Red Hat scopes records by product stream, a CPE without `cpe:/[oa]:redhat:`. The mainline RHEL streams
 * (`enterprise_linux:9::appstream`, `::baseos`, `::crb`, RHEL 7's `:7::server`, RHEL 10's minor-versioned
 * `enterprise_linux:10.0`) all describe the packages of that major release, so they share its key (`9`). Every other
 * stream (EUS/AUS/E4S/TUS/ELS such as `rhel_aus:8.4::appstream`, layered products such as `openshift:4.14::el9`) is
 * kept whole: os-release cannot tell that an image follows it, and its fixes land on branches of their own.
 */
function redHatRelease(cpe: string): FeedRelease {
  if (cpe.length > MAX_PRODUCT_CHARS) return { release: cpe };
  // Each `:`/`::` part needs a name after it, so the pattern cannot split a run of colons two ways (no backtracking blow-up).
  const mainline = /^enterprise_linux:(\d+)(?:\.\d+)?(?:::?[a-z0-9_]+)*$/i.exec(cpe);
  return { release: mainline ? mainline[1]! : cpe };
}

/**
 * SUSE scopes records by product marketing name (os-release PRETTY_NAME without `SUSE `). On SLE the packages of
 * one service pack are filed under the product or module that ships them (`Linux Enterprise Server 15 SP5`,
 * `Linux Enterprise Module for Basesystem 15 SP5`, `... 15 SP5-LTSS`), all built from one code base, so every
 * `Linux Enterprise ...` product shares the key os-release's VERSION_ID gives (`15.5`; `12` for a release without a
 * service pack). SLE Micro (`Linux Enterprise Micro 5.5`, `Linux Micro 6.0`) is its own line (`micro-5.5`); other
 * products (Manager, Enterprise Storage, Package Hub, ...) are kept whole, matched by no image.
 */
function suseRelease(product: string): FeedRelease {
  if (product.length > MAX_PRODUCT_CHARS) return { release: product };
  const micro = /^Linux (?:Enterprise )?Micro (\d+(?:\.\d+)?)$/i.exec(product);
  if (micro) return { release: `micro-${micro[1]}` };
  // The release is a word of its own (`15 SP5`); a product's own version (`Manager Server 4.3`) is not one.
  const sle = /^Linux Enterprise .*? (\d+)(?: SP(\d+))?(?:[- ][A-Z][A-Z-]*)?$/.exec(product);
  if (sle) return { release: sle[2] === undefined ? sle[1]! : `${sle[1]}.${sle[2]}` };
  return { release: product };
}

/**
 * openSUSE: `Leap 15.5` (and its `Leap 15.6 NonFree` repository) -> `leap-15.5`, `Leap Micro 5.5` ->
 * `leap-micro-5.5`, `Tumbleweed` -> `tumbleweed`; anything else kept whole.
 */
function openSuseRelease(product: string): FeedRelease {
  if (product.length > MAX_PRODUCT_CHARS) return { release: product };
  const leap = /^Leap (Micro )?(\d+\.\d+)(?: NonFree)?$/i.exec(product);
  if (leap) return { release: `${leap[1] ? 'leap-micro' : 'leap'}-${leap[2]}` };
  return { release: /^Tumbleweed$/i.test(product) ? 'tumbleweed' : product };
}

/**
 * RHEL-family and Mageia by major release; SLE by VERSION_ID (`15.5` is 15 SP5; SLE Micro its own `micro-5.5`);
 * openSUSE by line (`leap-15.5`, `leap-micro-5.5`, `tumbleweed`), as osv/ecosystem.ts keys the records.
 */
const DISTROS = [
  distroFeed('Red Hat', ['rhel'], major, redHatRelease),
  distroFeed('Rocky Linux', ['rocky'], major, majorFeedRelease),
  distroFeed('AlmaLinux', ['almalinux'], major, majorFeedRelease),
  distroFeed(
    'SUSE',
    ['sles', 'sles_sap', 'sled', 'sle-micro', 'sl-micro'],
    (d) => (d.name === 'sle-micro' || d.name === 'sl-micro' ? `micro-${d.version}` : versionParts(d, 2)),
    suseRelease,
  ),
  distroFeed(
    'openSUSE',
    ['opensuse', 'opensuse-leap', 'opensuse-leap-micro', 'opensuse-tumbleweed'],
    (d) => (d.name === 'opensuse-tumbleweed' ? 'tumbleweed' : `${d.name === 'opensuse-leap-micro' ? 'leap-micro' : 'leap'}-${versionParts(d, 2)}`),
    openSuseRelease,
  ),
  distroFeed('Mageia', ['mageia'], major, majorFeedRelease),
];

/** rpm versions are `[epoch:]version-release`; the purl carries the epoch as a qualifier. */
function splitEpoch(version: string): { epoch?: string; rest: string } {
  const match = /^(\d+):(.+)$/.exec(version);
  return match ? { epoch: match[1], rest: match[2]! } : { rest: version };
}

export function createRpmEcosystem(ownershipKey: OwnershipKey): Ecosystem {
  return osEcosystem({
    type: 'rpm',
    names: { syft: 'rpm', purl: 'rpm', language: '', foundBy: 'rpm' },
    catalogers: [createRpmCataloger(ownershipKey)],
    comparator: rpmComparator,
    distros: DISTROS,
    purlFor: ({ name, version, distro, arch }) => {
      const { epoch, rest } = splitEpoch(version);
      return purl('rpm', distro?.name, name, rest, { arch, distro: distroQualifier(distro), epoch });
    },
    // syft writes the source rpm's file name as the `upstream` qualifier.
    originFromPurl: (parsed) => {
      const upstream = parsed?.qualifiers?.['upstream'];
      return upstream ? { origin: sourceRpmName(upstream) ?? upstream } : {};
    },
  });
}
