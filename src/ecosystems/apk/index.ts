/** Alpine-family packages: apk's database, Alpine (secdb converted to OSV), Wolfi and Chainguard advisories. */
import { osEcosystem } from '../ecosystem.js';
import { distroFeed, versionParts } from '../shared/lookup.js';
import { osOriginFromPurl } from '../shared/os-purl.js';
import { apkCataloger, apkPurl } from './cataloger.js';
import { apkComparator } from './versions.js';

/** Alpine by major.minor (`Alpine:v3.18`); Wolfi and Chainguard are rolling, their records name no release. */
const DISTROS = [
  distroFeed('Alpine', ['alpine'], (d) => versionParts(d, 2)),
  distroFeed('Wolfi', ['wolfi'], () => undefined),
  distroFeed('Chainguard', ['chainguard'], () => undefined),
];

export const apkEcosystem = osEcosystem({
  type: 'apk',
  names: { syft: 'apk', purl: 'apk', language: '', foundBy: 'apk' },
  catalogers: [apkCataloger],
  comparator: apkComparator,
  distros: DISTROS,
  purlFor: ({ name, version, distro, arch }) => apkPurl(name, version, arch, distro),
  originFromPurl: osOriginFromPurl,
});
