/**
 * Name and version from a Java archive's file name (`log4j-core-2.14.1.jar` -> log4j-core, 2.14.1): the last resort
 * when an archive carries neither pom.properties nor a usable manifest.
 *
 * Maven names artifacts `<artifactId>-<version>[-<classifier>].<ext>`. The version starts at the first `-` followed by
 * a digit, except when a later `-<word>-<digit>` shows that the digits belonged to the artifactId
 * (`log4j-1.2-api-2.17.1.jar` -> log4j-1.2-api, 2.17.1); well-known qualifier words (`-rc-1`, `-alpha-2`, `-jre`)
 * do not count as such a word.
 */

const QUALIFIER_WORDS = new Set([
  'alpha', 'beta', 'rc', 'cr', 'm', 'milestone', 'snapshot', 'final', 'release', 'ga', 'sp', 'jre', 'android',
  'jdk', 'b', 'build', 'preview', 'pre', 'incubating', 'redhat', 'patch',
]);

export interface JarFileName {
  name: string;
  /** Empty when the file name carries no version. */
  version: string;
}

export function parseJarFileName(fileName: string): JarFileName {
  const base = fileName.replace(/^.*[/\\]/, '').replace(/\.(jar|war|ear|jpi|hpi|par|sar|nar|kar|rar)$/i, '');
  const split = versionStart(base);
  if (split < 0) return { name: base, version: '' };
  return { name: base.slice(0, split), version: base.slice(split + 1) };
}

/** Index of the `-` (or `_`) that separates name from version, or -1. */
function versionStart(base: string): number {
  // `_` separates only when there is no `-`: Scala artifactIds end in `_2.13` (`scala-xml_2.13-2.1.0.jar`).
  let first = base.search(/-\d/);
  if (first < 0) first = base.search(/_\d/);
  if (first <= 0) return -1;
  let split = first;
  // Look for `-<word>-<digit>` after the candidate: the artifactId itself contained digits.
  const re = /-([A-Za-z][A-Za-z0-9.]*)-(?=\d)/g;
  re.lastIndex = first + 1;
  for (let m = re.exec(base); m; m = re.exec(base)) {
    if (!QUALIFIER_WORDS.has(m[1]!.toLowerCase())) split = m.index + m[0].length - 1;
  }
  return split;
}
