/** Alpine-family packages: apk's database, Alpine (secdb converted to OSV), Wolfi and Chainguard advisories. */
import type { Ecosystem } from '../ecosystem.js';
import { distroFeed, distroLookup, versionParts } from '../shared/lookup.js';
import { osOriginFromPurl } from '../shared/os-purl.js';
import { apkCataloger, apkPurl } from './cataloger.js';
import { apkComparator } from './versions.js';

/** Alpine by major.minor (`Alpine:v3.18`); Wolfi and Chainguard are rolling, their records name no release. */
const DISTROS = [
  distroFeed('Alpine', ['alpine'], (d) => versionParts(d, 2)),
  distroFeed('Wolfi', ['wolfi'], () => undefined),
  distroFeed('Chainguard', ['chainguard'], () => undefined),
];

export const apkEcosystem: Ecosystem = {
  type: 'apk',
  names: { syft: 'apk', purl: 'apk', language: '', foundBy: 'apk' },
  content: { type: 'os', display: 'OS Packages' },
  catalogers: [apkCataloger],
  comparator: apkComparator,
  feeds: DISTROS,
  distros: DISTROS,
  lookup: distroLookup(DISTROS, apkComparator),
  normalizeName: (name) => name,
  purlFor: ({ name, version, distro, arch }) => apkPurl(name, version, arch, distro),
  originFromPurl: (purl) => osOriginFromPurl(purl),
};
