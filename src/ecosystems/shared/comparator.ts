/**
 * The shared shape of version comparators: one module per version format (dpkg, rpm, apk, SemVer, PEP 440,
 * Maven, RubyGems, Go), each exporting a VersionComparator. Matching asks "is installed version V inside this
 * range?" only through this interface.
 */
export interface VersionComparator {
  /** The format's name, e.g. 'dpkg', 'rpm', 'apk', 'semver', 'pep440', 'maven', 'gem', 'go'. */
  readonly name: string;
  /** Negative when a < b, zero when equal (in the format's sense), positive when a > b. Never throws. */
  compare(a: string, b: string): number;
  /** Whether the string is a version this format can order meaningfully. */
  isValid(version: string): boolean;
}
