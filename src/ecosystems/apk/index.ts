/** Alpine-family packages: apk's database, Alpine (secdb converted to OSV), Wolfi and Chainguard advisories. */
import { osEcosystem, type Ecosystem } from '../ecosystem.js';
import { distroFeed, versionParts } from '../shared/lookup.js';
import { osOriginFromPurl } from '../shared/os-purl.js';
import type { OwnershipKey } from '../shared/ownership-keys.js';
import { apkPurl, createApkCataloger } from './cataloger.js';
import { apkComparator } from './versions.js';

/** Alpine by major.minor (`Alpine:v3.18`); Wolfi and Chainguard are rolling, their records name no release. */
const DISTROS = [
  // The schema requires `Alpine:v3.18`; os-release and secdb say `3.18`.
  distroFeed('Alpine', ['alpine'], (d) => versionParts(d, 2), (suffix) => ({ release: suffix.replace(/^v(?=\d)/, '') })),
  distroFeed('Wolfi', ['wolfi'], () => undefined),
  distroFeed('Chainguard', ['chainguard'], () => undefined),
];

export function createApkEcosystem(ownershipKey: OwnershipKey): Ecosystem {
  return osEcosystem({
    type: 'apk',
    names: { syft: 'apk', purl: 'apk', language: '', foundBy: 'apk' },
    catalogers: [createApkCataloger(ownershipKey)],
    comparator: apkComparator,
    distros: DISTROS,
    purlFor: ({ name, version, distro, arch }) => apkPurl(name, version, arch, distro),
    originFromPurl: osOriginFromPurl,
  });
}
