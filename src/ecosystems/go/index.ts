/** Go modules compiled into binaries (build info, symbol table); Go advisories. */
import type { Ecosystem } from '../ecosystem.js';
import { feedEcosystem, languageLookup } from '../shared/lookup.js';
import { goBinaryCataloger, goPurl } from './cataloger.js';
import { goComparator } from './versions.js';

const FEED = feedEcosystem('Go');
// Module paths are case-sensitive as given.
const normalizeName = (name: string) => name;

export const goEcosystem: Ecosystem = {
  type: 'go',
  names: { syft: 'go-module', purl: 'golang', language: 'go', foundBy: 'go-binary' },
  content: { type: 'go', display: 'Go Modules' },
  catalogers: [goBinaryCataloger],
  comparator: goComparator,
  feeds: [FEED],
  lookup: languageLookup(FEED, normalizeName, goComparator),
  normalizeName,
  purlFor: ({ name, version }) => goPurl(name, version),
  // The module path is both the name and, as the cataloger records it, the origin.
  originFromPurl: (_purl, name) => ({ origin: name }),
  groupInName: true,
};
