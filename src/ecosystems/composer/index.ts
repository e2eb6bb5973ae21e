/** PHP packages: composer.lock and vendor/composer/installed.json; Packagist advisories. */
import { languageEcosystem, lowerCaseName } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { composerCataloger } from './cataloger.js';
import { composerComparator } from './versions.js';

export const composerEcosystem = languageEcosystem({
  type: 'composer',
  names: { syft: 'php-composer', purl: 'composer', language: 'php', foundBy: 'php-composer' },
  content: { type: 'composer', display: 'PHP Composer Packages' },
  catalogers: [composerCataloger],
  comparator: composerComparator,
  osv: 'Packagist',
  // A branch install (`dev-main`) names no release: every range would call it older than any version.
  lookup: (byName) => (pkg, distro) => (composerComparator.isValid(pkg.version) ? byName(pkg, distro) : undefined),
  normalizeName: lowerCaseName,
  purlFor: ({ name, version }) => {
    const [vendor, project] = name.split('/', 2);
    return project ? purl('composer', vendor, project, version) : purl('composer', undefined, name, version);
  },
  groupInName: true,
  // Composer lower-cases names on install, and the cataloger lists them so.
  canonicalName: lowerCaseName,
});
