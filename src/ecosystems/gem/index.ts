/** Ruby gems: installed gem specifications; RubyGems advisories. */
import type { Ecosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { feedEcosystem, languageLookup } from '../shared/lookup.js';
import { gemCataloger, isGemSpecificationPath } from './cataloger.js';
import { gemComparator } from './versions.js';

const FEED = feedEcosystem('RubyGems');
const normalizeName = (name: string) => name.toLowerCase();

export const gemEcosystem: Ecosystem = {
  type: 'gem',
  names: { syft: 'gem', purl: 'gem', language: 'ruby', foundBy: 'gem' },
  content: { type: 'gem', display: 'Ruby Gems' },
  catalogers: [gemCataloger],
  comparator: gemComparator,
  feeds: [FEED],
  lookup: languageLookup(FEED, normalizeName, gemComparator),
  normalizeName,
  ownershipKey: (path) => (isGemSpecificationPath(path) ? path : undefined),
  purlFor: ({ name, version }) => purl('gem', undefined, name, version),
  allowlistKey: (parts) => parts[parts.length - 1],
};
