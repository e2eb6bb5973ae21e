/** Package names as the matcher compares them: each ecosystem's own notion of "the same name". */

/** PEP 503: case-insensitive, runs of `-`, `_` and `.` are one separator. */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The key a package is indexed and looked up under, for an OSV ecosystem (lower-cased base name). */
export function normalizePackageName(ecosystem: string, name: string): string {
  switch (ecosystem.toLowerCase()) {
    case 'pypi':
      return normalizePythonName(name);
    case 'npm':
    case 'rubygems':
    case 'crates.io':
    case 'nuget':
    case 'packagist':
      return name.toLowerCase();
    default:
      // Distro package names, Go module paths and Maven group:artifact coordinates are case-sensitive as given.
      return name;
  }
}
