/** Java archives (jar, war, ear, Jenkins plugins, nested archives included); Maven advisories. */
import { languageEcosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { JAVA_ARCHIVE_EXTENSION } from './archive.js';
import { javaCataloger } from './cataloger.js';
import { mavenComparator } from './versions.js';

// group:artifact coordinates are case-sensitive as given.
const normalizeName = (name: string) => name;

/**
 * The Java archive a path is or lies in: the archive itself (`/usr/share/java/x.jar`) or, for a package found in a
 * nested archive, the top-level archive before the first `:` (`/opt/app.war:WEB-INF/lib/y.jar`, the cataloger's
 * virtual path), since an OS package ships the outer file whole.
 */
function javaArchiveOf(path: string): string | undefined {
  const colon = path.indexOf(':');
  if (colon > 0 && JAVA_ARCHIVE_EXTENSION.test(path.slice(0, colon))) return path.slice(0, colon);
  return JAVA_ARCHIVE_EXTENSION.test(path) ? path : undefined;
}

export const javaEcosystem = languageEcosystem({
  type: 'java',
  names: { syft: 'java-archive', syftAliases: ['jenkins-plugin'], purl: 'maven', language: 'java', foundBy: 'java' },
  content: { type: 'java', display: 'Java Packages' },
  catalogers: [javaCataloger],
  comparator: mavenComparator,
  osv: 'Maven',
  // Maven advisories name group:artifact; without a group the artifact alone cannot be matched precisely.
  lookup: (byCoordinates) => (pkg, distro) => (pkg.origin ? byCoordinates({ ...pkg, name: `${pkg.origin}:${pkg.name}` }, distro) : undefined),
  normalizeName,
  ownershipKey: javaArchiveOf,
  purlFor: ({ name, version, origin }) => purl('maven', origin ?? name, name, version),
  originFromPurl: (parsed) => (parsed?.namespace ? { origin: parsed.namespace } : {}),
  allowlistKey: (parts) => parts[parts.length - 1],
});
