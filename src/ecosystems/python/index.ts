/** Python distributions: installed `.dist-info`/`.egg-info` metadata; PyPI advisories. */
import { languageEcosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { normalizePythonName, pythonCataloger } from './cataloger.js';
import { pep440Comparator } from './versions.js';

/** The path up to and including the first `*.dist-info` or `*.egg-info` component (directory or single file). */
const METADATA_ENTRY = /^(.*?\/[^/]+\.(?:dist-info|egg-info))(?:\/|$)/;

export const pythonEcosystem = languageEcosystem({
  type: 'python',
  names: { syft: 'python', purl: 'pypi', language: 'python', foundBy: 'python' },
  content: { type: 'python', display: 'Python Packages' },
  catalogers: [pythonCataloger],
  comparator: pep440Comparator,
  osv: 'PyPI',
  normalizeName: normalizePythonName,
  ownershipKey: (path) => METADATA_ENTRY.exec(path)?.[1],
  purlFor: ({ name, version }) => purl('pypi', undefined, normalizePythonName(name), version),
});
