/**
 * Walks a Java archive and the archives nested in it (a war's WEB-INF/lib/*.jar, a Spring Boot jar's
 * BOOT-INF/lib/*.jar, an ear's modules), handing each one's identity files (MANIFEST.MF, pom.properties) to a
 * visitor. Knows nothing about packages: that is the cataloger's job.
 *
 * Nesting is bounded twice because archive content is attacker-controlled: by depth (a jar in a jar in a jar ...
 * costs little to build and a lot to unpack) and by the total bytes extracted from one top-level file (a small war
 * can hold deflated jars that expand a thousand-fold).
 */
import { parseJarManifest, type JarManifest } from './manifest.js';
import { parsePomProperties, type PomProperties } from './pom-properties.js';
import { readZipEntry, salvageZipEntries, type SalvagedEntry } from '../../formats/zip.js';

export const JAVA_ARCHIVE_EXTENSION = /\.(jar|war|ear|jpi|hpi)$/i;

export interface JavaArchiveLimits {
  /** Nested archives deeper than this (the top-level file is depth 0) are not opened. */
  maxDepth: number;
  /** Total bytes extracted (decompressed or sliced) from one top-level archive, nested archives included. */
  maxExtractedBytes: number;
  /** A MANIFEST.MF or pom.properties larger than this is ignored: real ones are a few KiB. */
  maxIdentityFileBytes: number;
  /**
   * Entries extracted (identity files and nested archives) from one top-level archive. Bounds the work when many
   * directory entries point at the same small data, which the byte budget alone would let through by the million.
   */
  maxExtractions: number;
}

export const DEFAULT_JAVA_ARCHIVE_LIMITS: JavaArchiveLimits = {
  maxDepth: 4,
  maxExtractedBytes: 512 * 1024 * 1024,
  maxIdentityFileBytes: 1024 * 1024,
  maxExtractions: 50_000,
};

export interface PomPropertiesFile {
  /** Entry path inside the archive, e.g. `META-INF/maven/org.slf4j/slf4j-api/pom.properties`. */
  path: string;
  /** groupId/artifactId from the entry path, for files that leave them out. */
  pathGroupId: string;
  pathArtifactId: string;
  properties: PomProperties;
}

export interface JavaArchiveContents {
  /** `/app/app.war` for the top-level file, `/app/app.war:WEB-INF/lib/foo.jar` for a nested one. */
  virtualPath: string;
  /** Entry name (nested) or file name (top level) of this archive, for name/version guessing. */
  fileName: string;
  depth: number;
  manifest?: JarManifest;
  pomProperties: PomPropertiesFile[];
}

export interface JavaArchiveWalkResult {
  /** Nested archives not opened because of the depth limit. */
  skippedTooDeep: number;
  /** Entries not extracted because a budget (bytes, extractions) was used up, or because they were unreadable. */
  skippedOverBudget: number;
}

const POM_PROPERTIES = /^META-INF\/maven\/([^/]+)\/([^/]+)\/pom\.properties$/;
const MANIFEST = /^META-INF\/MANIFEST\.MF$/i;

/**
 * Visits the archive at `path`, then (depth-first) every archive nested in it within the limits. An archive that
 * is not a readable zip (no entries at all) is not visited, nor are its contents. Never throws.
 */
export function walkJavaArchive(
  path: string,
  data: Uint8Array,
  visit: (archive: JavaArchiveContents) => void,
  limits: JavaArchiveLimits = DEFAULT_JAVA_ARCHIVE_LIMITS,
): JavaArchiveWalkResult {
  const state = { remaining: limits.maxExtractedBytes, extractions: 0, skippedTooDeep: 0, skippedOverBudget: 0 };

  const extract = (archive: Uint8Array, entry: SalvagedEntry, cap: number): Uint8Array | undefined => {
    if (++state.extractions > limits.maxExtractions) {
      state.skippedOverBudget++;
      return undefined;
    }
    const bytes = readZipEntry(archive, entry, Math.min(cap, state.remaining));
    if (!bytes) {
      state.skippedOverBudget++;
      return undefined;
    }
    state.remaining -= bytes.length;
    return bytes;
  };

  const walk = (virtualPath: string, fileName: string, archive: Uint8Array, depth: number): void => {
    let manifestEntry: SalvagedEntry | undefined;
    const pomEntries: { entry: SalvagedEntry; group: string; artifact: string }[] = [];
    const nested: SalvagedEntry[] = [];
    let entryCount = 0;
    for (const entry of salvageZipEntries(archive)) {
      entryCount++;
      if (entry.name.endsWith('/')) continue;
      const pom = POM_PROPERTIES.exec(entry.name);
      if (pom) pomEntries.push({ entry, group: pom[1]!, artifact: pom[2]! });
      else if (MANIFEST.test(entry.name)) manifestEntry ??= entry;
      else if (JAVA_ARCHIVE_EXTENSION.test(entry.name)) nested.push(entry);
    }
    if (entryCount === 0) return;

    const text = (entry: SalvagedEntry): string | undefined => {
      const bytes = extract(archive, entry, limits.maxIdentityFileBytes);
      return bytes && new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    };
    const manifestBytes = manifestEntry && extract(archive, manifestEntry, limits.maxIdentityFileBytes);
    const pomProperties: PomPropertiesFile[] = [];
    for (const { entry, group, artifact } of pomEntries) {
      const content = text(entry);
      if (content === undefined) continue;
      pomProperties.push({ path: entry.name, pathGroupId: group, pathArtifactId: artifact, properties: parsePomProperties(content) });
    }
    visit({
      virtualPath,
      fileName,
      depth,
      manifest: manifestBytes ? parseJarManifest(manifestBytes) : undefined,
      pomProperties,
    });

    for (const entry of nested) {
      if (depth + 1 > limits.maxDepth) {
        state.skippedTooDeep++;
        continue;
      }
      const bytes = extract(archive, entry, state.remaining);
      if (!bytes) continue;
      walk(`${virtualPath}:${entry.name}`, entry.name.slice(entry.name.lastIndexOf('/') + 1), bytes, depth + 1);
    }
  };

  try {
    walk(path, path.slice(path.lastIndexOf('/') + 1), data, 0);
  } catch {
    // Defensive only: the zip reader and parsers do not throw; a bug must not fail the whole image scan.
  }
  return { skippedTooDeep: state.skippedTooDeep, skippedOverBudget: state.skippedOverBudget };
}
