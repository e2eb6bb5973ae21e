/** npm packages: installed modules and lock files; npm advisories. */
import { languageEcosystem, lowerCaseName } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { semverComparator } from '../shared/semver.js';
import { isInstalledPackageJson, isProjectPackageLock, npmCataloger } from './cataloger.js';

export const npmEcosystem = languageEcosystem({
  type: 'npm',
  names: { syft: 'npm', purl: 'npm', language: 'javascript', foundBy: 'npm' },
  content: { type: 'npm', display: 'NPM Packages' },
  catalogers: [npmCataloger],
  comparator: semverComparator,
  osv: 'npm',
  normalizeName: lowerCaseName,
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
});
