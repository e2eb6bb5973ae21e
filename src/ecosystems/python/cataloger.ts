/**
 * Python cataloger: installed distributions described by core metadata — wheels' `*.dist-info/METADATA` and
 * setuptools' `*.egg-info/PKG-INFO` (or a bare `*.egg-info` file holding the same content, as Debian's
 * python3-* packages install them).
 */
import { posix } from 'node:path';
import { cpe23, purl } from '../shared/identifiers.js';
import type { CatalogedPackage, Cataloger } from '../model.js';
import { withoutUndefined } from '../../formats/json-object.js';
import { pythonLicenses } from './licenses.js';
import { allFields, firstField, parseHeaderFields, type HeaderFields } from '../../formats/rfc822.js';

const DIST_INFO_METADATA = /(?:^|\/)[^/]+\.dist-info\/METADATA$/;
const EGG_INFO_PKG_INFO = /(?:^|\/)[^/]+\.egg-info\/PKG-INFO$/;
/** The walker shows regular files only, so a path ending in .egg-info that reaches us is the single-file form. */
const EGG_INFO_FILE = /(?:^|\/)[^/]+\.egg-info$/;
/** PEP 508 distribution names; anything else in a Name field means the file is not core metadata. */
const DISTRIBUTION_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

export function isPythonMetadataPath(path: string): boolean {
  return DIST_INFO_METADATA.test(path) || EGG_INFO_PKG_INFO.test(path) || EGG_INFO_FILE.test(path);
}

/** PEP 503 normalisation: lower case, runs of `-`, `_` and `.` become one `-` (the form indexes and purls use). */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The directory holding the .dist-info/.egg-info entry, i.e. site-packages (or dist-packages, or a source tree). */
function sitePackagesPath(path: string): string {
  return EGG_INFO_FILE.test(path) ? posix.dirname(path) : posix.dirname(posix.dirname(path));
}

/** Setuptools writes `UNKNOWN` for fields the author left out; it means absent. */
function knownField(fields: HeaderFields, name: string): string | undefined {
  const value = firstField(fields, name);
  return value && value.toUpperCase() !== 'UNKNOWN' ? value : undefined;
}

/** Home-page, or for PEP 621 builds (which drop Home-page) the `Project-URL: Homepage, <url>` entry. */
function homePage(fields: HeaderFields): string | undefined {
  const declared = knownField(fields, 'Home-page');
  if (declared) return declared;
  for (const entry of allFields(fields, 'Project-URL')) {
    const comma = entry.indexOf(',');
    if (comma > 0 && entry.slice(0, comma).trim().toLowerCase().replace(/[-_ ]/g, '') === 'homepage') {
      return entry.slice(comma + 1).trim() || undefined;
    }
  }
  return undefined;
}

/** One package from a METADATA / PKG-INFO file, or [] when it has no usable Name and Version. */
export function parsePythonMetadata(path: string, content: Buffer): CatalogedPackage[] {
  // Core metadata is UTF-8 text; a NUL byte means binary content that merely has a matching name.
  if (content.includes(0)) return [];
  const fields = parseHeaderFields(content.toString('utf8'));
  const name = firstField(fields, 'Name');
  const version = firstField(fields, 'Version');
  if (!name || !version || !DISTRIBUTION_NAME.test(name) || /\s/.test(version)) return [];

  const licenses = pythonLicenses({
    licenseExpression: firstField(fields, 'License-Expression'),
    license: firstField(fields, 'License'),
    classifiers: allFields(fields, 'Classifier'),
  });
  const metadata = withoutUndefined({
    metadataVersion: firstField(fields, 'Metadata-Version'),
    summary: knownField(fields, 'Summary'),
    author: knownField(fields, 'Author'),
    authorEmail: knownField(fields, 'Author-email'),
    homePage: homePage(fields),
    requiresPython: knownField(fields, 'Requires-Python'),
    requiresDist: allFields(fields, 'Requires-Dist'),
    sitePackagesPath: sitePackagesPath(path),
  });
  return [
    {
      name,
      version,
      type: 'python',
      locations: [path],
      licenses,
      purl: purl('pypi', undefined, normalizePythonName(name), version),
      // NVD files most PyPI projects under the vendor `python` (python:requests, python:urllib3, python:pillow);
      // the alternative `python-<name>:<name>` guesses a GitHub organisation and rarely matches a real entry.
      cpes: [cpe23('python', name, version)],
      metadata,
    },
  ];
}

export const pythonCataloger: Cataloger = {
  name: 'python',
  // The long description rides along in the body; a few READMEs with embedded changelogs run to megabytes.
  maxFileBytes: 8 * 1024 * 1024,
  matches: isPythonMetadataPath,
  parse(path, content) {
    try {
      return parsePythonMetadata(path, content);
    } catch {
      // The parser is written not to throw; this guards the image walk against a bug on one odd file.
      return [];
    }
  },
};
