/** Go modules compiled into binaries (build info, symbol table); Go advisories. */
import { languageEcosystem } from '../ecosystem.js';
import { goBinaryCataloger, goPurl } from './cataloger.js';
import { goComparator } from './versions.js';

// Module paths are case-sensitive as given.
const normalizeName = (name: string) => name;

export const goEcosystem = languageEcosystem({
  type: 'go',
  names: { syft: 'go-module', purl: 'golang', language: 'go', foundBy: 'go-binary' },
  content: { type: 'go', display: 'Go Modules' },
  catalogers: [goBinaryCataloger],
  comparator: goComparator,
  osv: 'Go',
  normalizeName,
  purlFor: ({ name, version }) => goPurl(name, version),
  // The module path is both the name and, as the cataloger records it, the origin.
  originFromPurl: (_purl, name) => ({ origin: name }),
  groupInName: true,
});
