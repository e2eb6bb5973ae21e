/** .NET packages: `*.deps.json` of built applications; NuGet advisories. */
import type { Ecosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { feedEcosystem, languageLookup } from '../shared/lookup.js';
import { dotnetCataloger } from './cataloger.js';
import { nugetComparator } from './versions.js';

const FEED = feedEcosystem('NuGet');
const normalizeName = (name: string) => name.toLowerCase();

export const nugetEcosystem: Ecosystem = {
  type: 'nuget',
  names: { syft: 'dotnet', purl: 'nuget', language: 'dotnet', foundBy: 'dotnet-deps' },
  content: { type: 'nuget', display: 'NuGet Packages' },
  catalogers: [dotnetCataloger],
  comparator: nugetComparator,
  feeds: [FEED],
  lookup: languageLookup(FEED, normalizeName, nugetComparator),
  normalizeName,
  purlFor: ({ name, version }) => purl('nuget', undefined, name, version),
};
