/**
 * Red Hat-family and SUSE packages: rpm's database; Red Hat, Rocky Linux, AlmaLinux, SUSE, openSUSE and Mageia
 * advisories.
 */
import { distroQualifier } from '../distro.js';
import { osEcosystem, type Ecosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { distroFeed, versionParts, type DistroFeed } from '../shared/lookup.js';
import type { OwnershipKey } from '../shared/ownership-keys.js';
import { createRpmCataloger, sourceRpmName } from './cataloger.js';
import { rpmComparator } from './versions.js';

const major = (d: Parameters<DistroFeed['release']>[0]) => versionParts(d, 1);

/**
 * RHEL-family and Mageia by major release; SLE by VERSION_ID (`15.5` is 15 SP5; SLE Micro its own `micro-5.5`);
 * openSUSE by line (`leap-15.5`, `leap-micro-5.5`, `tumbleweed`), as osv/ecosystem.ts keys the records.
 */
const DISTROS = [
  distroFeed('Red Hat', ['rhel'], major),
  distroFeed('Rocky Linux', ['rocky'], major),
  distroFeed('AlmaLinux', ['almalinux'], major),
  distroFeed('SUSE', ['sles', 'sles_sap', 'sled', 'sle-micro', 'sl-micro'], (d) =>
    d.name === 'sle-micro' || d.name === 'sl-micro' ? `micro-${d.version}` : versionParts(d, 2),
  ),
  distroFeed('openSUSE', ['opensuse', 'opensuse-leap', 'opensuse-leap-micro', 'opensuse-tumbleweed'], (d) => {
    if (d.name === 'opensuse-tumbleweed') return 'tumbleweed';
    return `${d.name === 'opensuse-leap-micro' ? 'leap-micro' : 'leap'}-${versionParts(d, 2)}`;
  }),
  distroFeed('Mageia', ['mageia'], major),
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
