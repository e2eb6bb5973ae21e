/** npm packages: installed modules and lock files; npm advisories. */
import type { Ecosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { feedEcosystem, languageLookup } from '../shared/lookup.js';
import { semverComparator } from '../shared/semver.js';
import { isInstalledPackageJson, isProjectPackageLock, npmCataloger } from './cataloger.js';

const FEED = feedEcosystem('npm');
const normalizeName = (name: string) => name.toLowerCase();

export const npmEcosystem: Ecosystem = {
  type: 'npm',
  names: { syft: 'npm', purl: 'npm', language: 'javascript', foundBy: 'npm' },
  content: { type: 'npm', display: 'NPM Packages' },
  catalogers: [npmCataloger],
  comparator: semverComparator,
  feeds: [FEED],
  lookup: languageLookup(FEED, normalizeName, semverComparator),
  normalizeName,
  // A module's package.json; a package-lock.json an OS package ships (Debian's libruby3.1 has one inside a bundled
  // gem) lists what its authors developed with, so its entries are the OS package's too.
  ownershipKey: (path) => (isInstalledPackageJson(path) || isProjectPackageLock(path) ? path : undefined),
  purlFor: ({ name, version }) => {
    const scoped = /^(@[^/]+)\/(.+)$/.exec(name);
    return purl('npm', scoped?.[1], scoped?.[2] ?? name, version);
  },
  groupInName: true,
  // node_modules/<name>/package.json: the module's directory.
  allowlistKey: (parts) => (parts.length >= 2 ? parts[parts.length - 2] : undefined),
};
