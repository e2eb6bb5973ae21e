/** PHP packages: composer.lock and vendor/composer/installed.json; Packagist advisories. */
import type { Ecosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { feedEcosystem, languageLookup } from '../shared/lookup.js';
import { composerCataloger } from './cataloger.js';
import { composerComparator } from './versions.js';

const FEED = feedEcosystem('Packagist');
const normalizeName = (name: string) => name.toLowerCase();
const byName = languageLookup(FEED, normalizeName, composerComparator);

export const composerEcosystem: Ecosystem = {
  type: 'composer',
  names: { syft: 'php-composer', purl: 'composer', language: 'php', foundBy: 'php-composer' },
  content: { type: 'composer', display: 'PHP Composer Packages' },
  catalogers: [composerCataloger],
  comparator: composerComparator,
  feeds: [FEED],
  // A branch install (`dev-main`) names no release: every range would call it older than any version.
  lookup: (pkg, distro) => (composerComparator.isValid(pkg.version) ? byName(pkg, distro) : undefined),
  normalizeName,
  purlFor: ({ name, version }) => {
    const [vendor, project] = name.split('/', 2);
    return project ? purl('composer', vendor, project, version) : purl('composer', undefined, name, version);
  },
  groupInName: true,
  // Composer lower-cases names on install, and the cataloger lists them so.
  canonicalName: (name) => name.toLowerCase(),
};
