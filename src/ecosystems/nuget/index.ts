/** .NET packages: `*.deps.json` of built applications; NuGet advisories. */
import { languageEcosystem, lowerCaseName } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { dotnetCataloger } from './cataloger.js';
import { nugetComparator } from './versions.js';

export const nugetEcosystem = languageEcosystem({
  type: 'nuget',
  names: { syft: 'dotnet', purl: 'nuget', language: 'dotnet', foundBy: 'dotnet-deps' },
  content: { type: 'nuget', display: 'NuGet Packages' },
  catalogers: [dotnetCataloger],
  comparator: nugetComparator,
  osv: 'NuGet',
  normalizeName: lowerCaseName,
  purlFor: ({ name, version }) => purl('nuget', undefined, name, version),
});
