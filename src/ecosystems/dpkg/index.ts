/** Debian-family packages: dpkg's database, Debian and Ubuntu advisories. */
import { osEcosystem, type Ecosystem } from '../ecosystem.js';
import { distroFeed, versionParts } from '../shared/lookup.js';
import type { OwnershipKey } from '../shared/ownership-keys.js';
import { osOriginFromPurl } from '../shared/os-purl.js';
import { createDpkgCataloger, debPurl } from './cataloger.js';
import { dpkgComparator } from './versions.js';

/** Debian by major release (`Debian:12`); Ubuntu by YY.MM (`Ubuntu:22.04:LTS`, osv/ecosystem.ts). */
const DISTROS = [distroFeed('Debian', ['debian'], (d) => versionParts(d, 1)), distroFeed('Ubuntu', ['ubuntu'], (d) => d.version)];

export function createDpkgEcosystem(ownershipKey: OwnershipKey): Ecosystem {
  return osEcosystem({
    type: 'dpkg',
    names: { syft: 'deb', purl: 'deb', language: '', foundBy: 'dpkg' },
    catalogers: [createDpkgCataloger(ownershipKey)],
    comparator: dpkgComparator,
    distros: DISTROS,
    purlFor: ({ name, version, distro, arch }) => debPurl(name, version, arch, distro),
    originFromPurl: osOriginFromPurl,
  });
}
