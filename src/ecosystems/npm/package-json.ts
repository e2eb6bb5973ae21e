/** Building npm CatalogedPackages and reading the npm manifest conventions shared by package.json and lock files. */
import { cpe23, purl } from '../shared/identifiers.js';
import type { CatalogedPackage } from '../model.js';
import { isJsonObject, stringField } from '../../formats/json-object.js';

/**
 * Whether a string can be an npm package name: `name` or `@scope/name`, no blanks or further slashes. Looser than
 * npm's current rules on purpose (legacy names with capitals exist); it only keeps garbage out of purls.
 */
export function isNpmPackageName(name: string): boolean {
  return /^(?:@[^\s/@]+\/)?[^\s/@][^\s/]*$/.test(name);
}

/** Splits `@scope/name` into scope and bare name; unscoped names have no scope. */
export function splitNpmName(fullName: string): { scope?: string; name: string } {
  const match = /^(@[^/]+)\/([^/]+)$/.exec(fullName);
  return match ? { scope: match[1], name: match[2] } : { name: fullName };
}

/**
 * The package as Vigil reports it. The CPE is `<name>:<name>` for unscoped packages (the usual NVD shape, e.g.
 * `lodash:lodash`); for scoped ones the scope stands in for the vendor (`@xmldom/xmldom` -> `xmldom:xmldom`)
 * because escaping `@scope/name` whole yields a CPE no NVD entry can ever match.
 */
export function npmPackage(
  fullName: string,
  version: string,
  location: string,
  licenses: string[],
  metadata: Record<string, unknown>,
): CatalogedPackage {
  const { scope, name } = splitNpmName(fullName);
  return {
    name: fullName,
    version,
    type: 'npm',
    locations: [location],
    licenses,
    purl: purl('npm', scope, name, version),
    cpes: [cpe23(scope ? scope.slice(1) : name, name, version)],
    metadata,
  };
}

function licenseName(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  // `{ "type": "MIT", "url": "..." }` was the documented form before npm adopted SPDX strings.
  return isJsonObject(value) ? stringField(value, 'type') : undefined;
}

/**
 * Licenses from `license` (SPDX string or legacy `{type}` object) or, failing that, the legacy `licenses` array
 * (strings or `{type}` objects; a lone object is tolerated too). Values are kept as declared.
 */
export function npmLicenses(license: unknown, legacyLicenses?: unknown): string[] {
  const primary = licenseName(license);
  if (primary) return [primary];
  const list = Array.isArray(legacyLicenses) ? legacyLicenses : legacyLicenses === undefined ? [] : [legacyLicenses];
  const names = list.map(licenseName).filter((n): n is string => n !== undefined);
  return [...new Set(names)];
}

/** `author` as one string: strings are kept, `{name, email, url}` objects become `name <email> (url)` as npm writes them. */
export function npmPerson(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (!isJsonObject(value)) return undefined;
  const name = stringField(value, 'name');
  const email = stringField(value, 'email');
  const url = stringField(value, 'url');
  const parts = [name, email && `<${email}>`, url && `(${url})`].filter((p): p is string => !!p);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** `repository` as its URL: either the shorthand string (`github:user/repo`) or the `url` of `{type, url}`. */
export function npmRepository(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  return isJsonObject(value) ? stringField(value, 'url') : undefined;
}
