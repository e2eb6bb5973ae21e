/**
 * Java archive cataloger: one package per Maven artifact found in a jar/war/ear/jpi/hpi, nested archives included.
 *
 * Identity, per archive:
 *  1. every `META-INF/maven/<group>/<artifact>/pom.properties` (shaded jars carry several; each is a package);
 *  2. when none of those describes the archive itself, the archive is a package too, named by its file name when
 *     that is Maven-style (`log4j-core-2.14.1.jar` -> log4j-core 2.14.1), else by its manifest (Jenkins
 *     `Short-Name`/`Plugin-Version`, `Implementation-Title`/`-Version`, `Bundle-SymbolicName`/`Bundle-Version`,
 *     `Specification-Title`/`-Version`), else by its bare file name (see `archiveIdentity` for why this order).
 * The archive's own pom.properties receives the manifest's metadata and licenses, so the manifest never produces
 * a second package for the same artifact.
 */
import type { CatalogedPackage, Cataloger } from '../model.js';
import { cpe23, purl } from '../shared/identifiers.js';
import { JAVA_ARCHIVE_EXTENSION, walkJavaArchive, type JavaArchiveContents, type PomPropertiesFile } from './archive.js';
import { parseJarFileName, type JarFileName } from './file-name.js';
import { manifestAttribute, type ManifestAttributes } from './manifest.js';
import { appendAll } from '../../util/arrays.js';

/** Manifest main attributes worth keeping in package metadata (the rest is build noise). */
const MANIFEST_METADATA_KEYS = [
  'Manifest-Version', 'Created-By', 'Built-By', 'Build-Jdk', 'Build-Jdk-Spec', 'Main-Class', 'Start-Class',
  'Implementation-Title', 'Implementation-Version', 'Implementation-Vendor', 'Implementation-Vendor-Id',
  'Specification-Title', 'Specification-Version', 'Specification-Vendor', 'Bundle-Name', 'Bundle-SymbolicName',
  'Bundle-Version', 'Bundle-Vendor', 'Bundle-License', 'Automatic-Module-Name', 'Spring-Boot-Version',
  'Short-Name', 'Plugin-Version', 'Group-Id', 'Extension-Name',
];

export interface JavaIdentity {
  groupId?: string;
  artifactId: string;
  version: string;
  source: 'pom.properties' | 'manifest' | 'file-name';
}

export const javaCataloger: Cataloger = {
  name: 'java',
  maxFileBytes: 256 * 1024 * 1024,
  matches(path: string): boolean {
    return JAVA_ARCHIVE_EXTENSION.test(path);
  },
  parse(path: string, content: Buffer): CatalogedPackage[] {
    const found: CatalogedPackage[] = [];
    walkJavaArchive(path, content, (archive) => {
      try {
        appendAll(found, packagesFromArchive(archive));
      } catch {
        // A malformed archive must not cost the packages already found in its siblings.
      }
    });
    return mergeDuplicates(found);
  },
};

/** The packages one archive (top-level or nested) declares. */
export function packagesFromArchive(archive: JavaArchiveContents): CatalogedPackage[] {
  const main = archive.manifest?.main ?? {};
  const fromFileName = parseJarFileName(archive.fileName);
  const own = ownPomProperties(archive.pomProperties, main, archive.fileName, fromFileName);
  const packages = archive.pomProperties.map((pom) => {
    const p = pom.properties;
    const identity: JavaIdentity = {
      groupId: p.groupId ?? pom.pathGroupId,
      artifactId: p.artifactId ?? pom.pathArtifactId,
      version: p.version ?? '',
      source: 'pom.properties',
    };
    return javaPackage(identity, archive, pom === own ? main : undefined, pom);
  });
  if (own) return packages;
  // No pom.properties describes the archive itself (none at all, or only shaded-in dependencies' as in Gradle-built
  // jars): the archive is a package of its own, named by its file or manifest. Beside foreign poms, only when a
  // version is known, since an unversioned guess next to real coordinates is noise.
  const identity = archiveIdentity(main, fromFileName);
  if (!identity.artifactId || (packages.length > 0 && !identity.version)) return packages;
  return [javaPackage(identity, archive, main, undefined), ...packages];
}

function attr(main: ManifestAttributes, name: string): string | undefined {
  return manifestAttribute(main, name)?.trim() || undefined;
}

/** A title usable as an artifact name: one token, no prose. */
function nameLike(value: string | undefined): string | undefined {
  return value && /^[A-Za-z0-9][\w.+-]*$/.test(value) ? value : undefined;
}

/** `Bundle-SymbolicName: org.foo.bar;singleton:=true` -> `org.foo.bar`. */
function symbolicName(value: string | undefined): string | undefined {
  return nameLike(value?.split(';')[0]!.trim());
}

/** The leading version token of a manifest value: `5.13.0 (b0)` -> `5.13.0`; prose yields undefined. */
function versionLike(value: string | undefined): string | undefined {
  return value ? /^v?\d[\w.+~-]*/.exec(value)?.[0] : undefined;
}

/**
 * Identity of an archive without its own pom.properties. A Maven-style file name (`name-1.2.3.jar`) is the
 * artifactId and version exactly, whereas manifest names are often Java package names (`com.sun.jna`,
 * `org.objectweb.asm`) or build-tool project names (`all`, `context`) and manifest versions carry build
 * qualifiers (`5.13.0 (b0)`), so such a file name wins (measured on ~1000 jars of a Maven repository, it was
 * right where the manifest was not). The manifest names archives whose file name carries no version
 * (`app.jar`, Jenkins `git.jpi`) and supplies the groupId (`Group-Id`, `Implementation-Vendor-Id`, which
 * maven-archiver sets to the groupId; older Apache jars put the organisation there, e.g. `org.apache`).
 */
export function archiveIdentity(main: ManifestAttributes, fromFileName: JarFileName): JavaIdentity {
  const groupId = attr(main, 'Group-Id') ?? attr(main, 'Implementation-Vendor-Id');
  const withGroup = groupId ? { groupId } : {};
  const jenkinsName = attr(main, 'Short-Name');
  if (jenkinsName) {
    const version = attr(main, 'Plugin-Version') ?? versionLike(attr(main, 'Implementation-Version')) ?? fromFileName.version;
    return { ...withGroup, artifactId: jenkinsName, version, source: 'manifest' };
  }
  if (fromFileName.version) return { ...withGroup, artifactId: fromFileName.name, version: fromFileName.version, source: 'file-name' };
  const manifestName =
    nameLike(attr(main, 'Implementation-Title')) ?? symbolicName(attr(main, 'Bundle-SymbolicName')) ?? nameLike(attr(main, 'Specification-Title'));
  const manifestVersion =
    versionLike(attr(main, 'Implementation-Version')) ?? versionLike(attr(main, 'Bundle-Version')) ?? versionLike(attr(main, 'Specification-Version'));
  return {
    ...withGroup,
    artifactId: manifestName ?? fromFileName.name,
    version: manifestVersion ?? '',
    source: manifestName || manifestVersion ? 'manifest' : 'file-name',
  };
}

/**
 * Which pom.properties describes the archive itself (as opposed to shaded-in dependencies): the one whose
 * artifactId matches the file name or the manifest's names, or else a lone one when the file name says nothing
 * against it. Undefined when that cannot be told.
 */
function ownPomProperties(
  poms: PomPropertiesFile[],
  main: ManifestAttributes,
  fileName: string,
  fromFileName: JarFileName,
): PomPropertiesFile | undefined {
  const fileBase = fileName.replace(JAVA_ARCHIVE_EXTENSION, '');
  const names = new Set(
    [fromFileName.name, fileBase, attr(main, 'Implementation-Title'), attr(main, 'Short-Name'), attr(main, 'Automatic-Module-Name')]
      .filter((n): n is string => !!n)
      .map((n) => n.toLowerCase()),
  );
  const bsn = attr(main, 'Bundle-SymbolicName')?.split(';')[0]!.trim().toLowerCase();
  const base = `${fromFileName.name}-${fromFileName.version}`.toLowerCase();
  const coordinates = (pom: PomPropertiesFile) => ({
    artifact: (pom.properties.artifactId ?? pom.pathArtifactId).toLowerCase(),
    group: (pom.properties.groupId ?? pom.pathGroupId).toLowerCase(),
    version: (pom.properties.version ?? '').toLowerCase(),
  });
  // The exact Maven file name (`<artifactId>-<version>[-classifier]`) first: name guessing splits `level-1.jar` wrongly.
  const byFileName = poms.find((pom) => {
    const { artifact, version } = coordinates(pom);
    return version !== '' && base.startsWith(`${artifact}-${version}`);
  });
  const matching =
    byFileName ??
    poms.find((pom) => {
      const { artifact, group } = coordinates(pom);
      return names.has(artifact) || bsn === `${group}.${artifact}` || bsn === artifact;
    });
  if (matching) return matching;
  // `app.jar` tells nothing; `opentelemetry-sdk-trace-1.55.0.jar` holding only jctools' pom says it is not its own.
  return poms.length === 1 && !fromFileName.version ? poms[0] : undefined;
}

function javaPackage(
  id: JavaIdentity,
  archive: JavaArchiveContents,
  manifestMain: ManifestAttributes | undefined,
  pom: PomPropertiesFile | undefined,
): CatalogedPackage {
  const metadata: Record<string, unknown> = {
    virtualPath: archive.virtualPath,
    artifactId: id.artifactId,
    identitySource: id.source,
  };
  if (id.groupId) metadata['groupId'] = id.groupId;
  if (pom) metadata['pomProperties'] = { path: pom.path, ...pom.properties.all };
  const manifestSubset = manifestMain && pickManifestMetadata(manifestMain);
  if (manifestSubset) metadata['manifest'] = manifestSubset;
  return {
    name: id.artifactId,
    version: id.version,
    type: 'java',
    locations: [archive.virtualPath],
    licenses: manifestMain ? bundleLicenses(attr(manifestMain, 'Bundle-License')) : [],
    ...(id.groupId ? { origin: id.groupId } : {}),
    purl: mavenPurl(id),
    cpes: javaCpes(id.groupId, id.artifactId, id.version),
    metadata,
  };
}

/**
 * The purl spec requires a namespace for maven; without a known groupId the artifactId stands in for it (as syft
 * does), which is also what a bare `log4j-1.2.17.jar` most often is (log4j:log4j). Odd names that the purl library
 * rejects leave the purl empty rather than losing the package.
 */
function mavenPurl(id: JavaIdentity): string {
  try {
    return purl('maven', id.groupId ?? id.artifactId, id.artifactId, id.version);
  } catch {
    return '';
  }
}

function pickManifestMetadata(main: ManifestAttributes): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const key of MANIFEST_METADATA_KEYS) {
    const value = attr(main, key);
    if (value !== undefined) out[key] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

/** URLs commonly used in Bundle-License for licenses that have an SPDX id; anything else is kept as declared. */
const LICENSE_URLS: [RegExp, string][] = [
  [/apache\.org\/licenses\/LICENSE-2\.0/i, 'Apache-2.0'],
  [/opensource\.org\/licenses\/(mit|MIT-license)/i, 'MIT'],
  [/eclipse\.org\/legal\/epl-2\.0/i, 'EPL-2.0'],
  [/eclipse\.org\/legal\/epl-v10/i, 'EPL-1.0'],
];

/**
 * OSGi `Bundle-License`: comma-separated licenses, each a name (SPDX id or URL) optionally followed by
 * `;description=...;link=...` attributes; `<<EXTERNAL>>` means "see elsewhere".
 */
export function bundleLicenses(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  for (const part of value.match(/(?:"[^"]*"|[^,])+/g) ?? []) {
    const name = part.split(';')[0]!.trim().replace(/^"|"$/g, '').trim();
    if (!name || name === '<<EXTERNAL>>') continue;
    const spdx = LICENSE_URLS.find(([re]) => re.test(name))?.[1] ?? name;
    if (!out.includes(spdx)) out.push(spdx);
  }
  return out;
}

/** First groupId segments that are domain suffixes, and hosting sites: neither names a vendor. */
const NOT_VENDORS = new Set(['org', 'com', 'net', 'io', 'info', 'biz', 'edu', 'gov', 'dev', 'app', 'github', 'gitlab', 'bitbucket', 'sourceforge', 'googlecode']);
/** Last groupId segments that name a module rather than a project (com.fasterxml.jackson.core). */
const GENERIC_SEGMENTS = new Set(['core', 'api', 'impl', 'common', 'util', 'utils', 'parent', 'lib', 'libs', 'java', 'plugins', 'modules']);

/**
 * CPE candidates, deliberately few (a matcher tries each, so wrong guesses cost false positives). Product is the
 * artifactId. Vendors come from the groupId, read as a reversed domain: its organisation segment
 * (org.apache.logging.log4j -> apache) and, when distinct and specific, its last segment (-> log4j). A package
 * without a groupId uses its own name as vendor, as many NVD entries do (e.g. log4j:log4j).
 */
export function javaCpes(groupId: string | undefined, artifactId: string, version: string): string[] {
  if (!version || !artifactId) return [];
  const vendors: string[] = [];
  const segments = (groupId ?? '').split('.').filter(Boolean);
  if (segments.length === 0) vendors.push(artifactId);
  else if (segments.length === 1) vendors.push(segments[0]!);
  else {
    // Skip a short country/TLD-like first segment (de.foo, org.foo) and hosting sites (io.github.user).
    let i = 0;
    while (i < segments.length - 1 && (NOT_VENDORS.has(segments[i]!) || (i === 0 && segments[i]!.length <= 2))) i++;
    vendors.push(segments[i]!);
    const last = segments[segments.length - 1]!;
    if (!GENERIC_SEGMENTS.has(last) && !NOT_VENDORS.has(last)) vendors.push(last);
  }
  return [...new Set(vendors.map((v) => v.toLowerCase()))].map((vendor) => cpe23(vendor, artifactId, version));
}

/**
 * One package per artifact per top-level file: the same artifact reached twice (a shaded copy's pom.properties
 * and the nested jar itself, or a jar known only by file name next to its pom-derived twin) becomes one
 * package listing every location.
 */
function mergeDuplicates(packages: CatalogedPackage[]): CatalogedPackage[] {
  const byKey = new Map<string, CatalogedPackage>();
  const byNameVersion = new Map<string, CatalogedPackage>();
  const key = (p: CatalogedPackage): string => `${p.origin ?? ''}|${p.name}|${p.version}`;
  // Grouped packages first so that group-less twins can join them.
  const ordered = [...packages.filter((p) => p.origin), ...packages.filter((p) => !p.origin)];
  for (const p of ordered) {
    const nameVersion = `${p.name}|${p.version}`;
    const twin = byKey.get(key(p)) ?? (p.origin ? undefined : byNameVersion.get(nameVersion));
    if (!twin) {
      byKey.set(key(p), p);
      if (!byNameVersion.has(nameVersion)) byNameVersion.set(nameVersion, p);
      continue;
    }
    for (const l of p.locations) if (!twin.locations.includes(l)) twin.locations.push(l);
    for (const l of p.licenses) if (!twin.licenses.includes(l)) twin.licenses.push(l);
  }
  // Restore discovery order (outer archive first) for stable, readable output.
  return packages.filter((p) => byKey.get(key(p)) === p);
}
