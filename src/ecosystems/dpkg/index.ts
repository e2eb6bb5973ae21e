/** Debian-family packages: dpkg's database, Debian and Ubuntu advisories. */
import type { Ecosystem } from '../ecosystem.js';
import { distroFeed, distroLookup, versionParts } from '../shared/lookup.js';
import type { OwnershipKey } from '../shared/ownership-keys.js';
import { osOriginFromPurl } from '../shared/os-purl.js';
import { createDpkgCataloger, debPurl } from './cataloger.js';
import { dpkgComparator } from './versions.js';

/** Debian by major release (`Debian:12`); Ubuntu by YY.MM (`Ubuntu:22.04:LTS`, osv/ecosystem.ts). */
const DISTROS = [distroFeed('Debian', ['debian'], (d) => versionParts(d, 1)), distroFeed('Ubuntu', ['ubuntu'], (d) => d.version)];

export function createDpkgEcosystem(ownershipKey: OwnershipKey): Ecosystem {
  return {
    type: 'dpkg',
    names: { syft: 'deb', purl: 'deb', language: '', foundBy: 'dpkg' },
    content: { type: 'os', display: 'OS Packages' },
    catalogers: [createDpkgCataloger(ownershipKey)],
    comparator: dpkgComparator,
    feeds: DISTROS,
    distros: DISTROS,
    lookup: distroLookup(DISTROS, dpkgComparator),
    normalizeName: (name) => name,
    purlFor: ({ name, version, distro, arch }) => debPurl(name, version, arch, distro),
    originFromPurl: (purl) => osOriginFromPurl(purl),
  };
}
