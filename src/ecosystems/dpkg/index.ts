/** Debian-family packages: dpkg's database, Debian and Ubuntu advisories. */
import { osEcosystem, type Ecosystem } from '../ecosystem.js';
import { distroFeed, versionParts, type FeedRelease } from '../shared/lookup.js';
import type { OwnershipKey } from '../shared/ownership-keys.js';
import { osOriginFromPurl } from '../shared/os-purl.js';
import { createDpkgCataloger, debPurl } from './cataloger.js';
import { dpkgComparator } from './versions.js';

/**
 * `22.04:LTS`, `Pro:18.04:LTS`, `Pro:FIPS-updates:22.04:LTS`, `Pro:22.04:LTS:Realtime:Kernel`: markers around a
 * YY.MM release. Plain Pro (ESM) continues the release's own archive (`+esm` versions sort above the standard
 * ones), so it shares the release key; other Pro services (FIPS, FIPS-updates, FIPS-preview, Realtime kernel)
 * ship builds of their own whose versions do not order against the standard ones, so they get a key of their own
 * (`22.04:FIPS-updates`) that no image release equals.
 */
function ubuntuFeedRelease(suffix: string): FeedRelease {
  const parts = suffix.split(':').filter((p) => p !== '');
  const out: FeedRelease = {};
  if (parts.includes('LTS')) out.lts = true;
  if (parts.includes('Pro')) out.pro = true;
  const rest = parts.filter((p) => p !== 'LTS' && p !== 'Pro');
  const numeric = rest.find((p) => /^\d+(\.\d+)*$/.test(p));
  const variant = rest.filter((p) => p !== numeric);
  const release = numeric === undefined ? rest.join(':') : [numeric, ...variant].join(':');
  if (release !== '') out.release = release;
  return out;
}

/** Debian by major release (`Debian:12`); Ubuntu by YY.MM (`Ubuntu:22.04:LTS`). */
const DISTROS = [
  distroFeed('Debian', ['debian'], (d) => versionParts(d, 1)),
  distroFeed('Ubuntu', ['ubuntu'], (d) => d.version, ubuntuFeedRelease),
];

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
