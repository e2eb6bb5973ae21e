/** Ruby gems: installed gem specifications; RubyGems advisories. */
import { languageEcosystem, lowerCaseName } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { gemCataloger, isGemSpecificationPath } from './cataloger.js';
import { gemComparator } from './versions.js';

export const gemEcosystem = languageEcosystem({
  type: 'gem',
  names: { syft: 'gem', purl: 'gem', language: 'ruby', foundBy: 'gem' },
  content: { type: 'gem', display: 'Ruby Gems' },
  catalogers: [gemCataloger],
  comparator: gemComparator,
  osv: 'RubyGems',
  normalizeName: lowerCaseName,
  ownershipKey: (path) => (isGemSpecificationPath(path) ? path : undefined),
  purlFor: ({ name, version }) => purl('gem', undefined, name, version),
  allowlistKey: (parts) => parts[parts.length - 1],
});
