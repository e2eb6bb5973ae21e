/**
 * Licenses of a Python distribution from its core metadata. Precedence, most precise first:
 *  1. `License-Expression` (Metadata 2.4, PEP 639): an SPDX expression by definition.
 *  2. `License` when it is recognisably an SPDX id/expression or a well-known spelling of one ("Apache 2.0").
 *  3. License classifiers, when every one of them maps to an SPDX id without guessing.
 *  4. `License` as declared (free text such as "GNU GPL"), else the classifiers' own names ("BSD License").
 * `UNKNOWN` (the setuptools placeholder) and multi-line or very long `License` values (whole license texts pasted
 * into the field, as older numpy/scipy did) are not license names and are ignored.
 */

/** SPDX ids commonly declared by Python packages, keyed lower-case; used to recognise (and re-case) ids. */
const KNOWN_SPDX_IDS = new Map(
  [
    '0BSD', 'AFL-2.1', 'AGPL-3.0', 'AGPL-3.0-only', 'AGPL-3.0-or-later', 'Apache-1.1', 'Apache-2.0', 'Artistic-2.0',
    'BSD-2-Clause', 'BSD-3-Clause', 'BSD-4-Clause', 'BSL-1.0', 'CC-BY-4.0', 'CC0-1.0', 'CNRI-Python', 'EPL-1.0',
    'EPL-2.0', 'EUPL-1.2', 'GPL-2.0', 'GPL-2.0-only', 'GPL-2.0-or-later', 'GPL-3.0', 'GPL-3.0-only',
    'GPL-3.0-or-later', 'HPND', 'ISC', 'LGPL-2.0-only', 'LGPL-2.0-or-later', 'LGPL-2.1', 'LGPL-2.1-only',
    'LGPL-2.1-or-later', 'LGPL-3.0', 'LGPL-3.0-only', 'LGPL-3.0-or-later', 'MIT', 'MIT-0', 'MPL-1.1', 'MPL-2.0',
    'OpenSSL', 'PSF-2.0', 'Python-2.0', 'Unlicense', 'UPL-1.0', 'WTFPL', 'Zlib', 'ZPL-2.1',
    // Exceptions, for `WITH` clauses.
    'LLVM-exception', 'Classpath-exception-2.0',
  ].map((id) => [id.toLowerCase(), id]),
);

/** Free-text spellings whose meaning is unambiguous, keyed lower-case with single spaces. */
const LICENSE_ALIASES = new Map<string, string>([
  ['mit license', 'MIT'],
  ['the mit license', 'MIT'],
  ['apache 2', 'Apache-2.0'],
  ['apache 2.0', 'Apache-2.0'],
  ['apache2', 'Apache-2.0'],
  ['apache license 2.0', 'Apache-2.0'],
  ['apache license, version 2.0', 'Apache-2.0'],
  ['apache license version 2.0', 'Apache-2.0'],
  ['apache software license 2.0', 'Apache-2.0'],
  ['apache software license, version 2.0', 'Apache-2.0'],
  ['asl 2.0', 'Apache-2.0'],
  ['bsd 3-clause', 'BSD-3-Clause'],
  ['3-clause bsd', 'BSD-3-Clause'],
  ['bsd 3-clause license', 'BSD-3-Clause'],
  ['new bsd', 'BSD-3-Clause'],
  ['new bsd license', 'BSD-3-Clause'],
  ['bsd 2-clause', 'BSD-2-Clause'],
  ['2-clause bsd', 'BSD-2-Clause'],
  ['simplified bsd', 'BSD-2-Clause'],
  ['isc license', 'ISC'],
  ['psf', 'PSF-2.0'],
  ['psf license', 'PSF-2.0'],
  ['python software foundation license', 'PSF-2.0'],
  ['mpl 2.0', 'MPL-2.0'],
  ['mozilla public license 2.0', 'MPL-2.0'],
  ['mozilla public license 2.0 (mpl 2.0)', 'MPL-2.0'],
]);

/**
 * Trove classifiers that name exactly one license version. Deliberately absent: "Apache Software License" and
 * "BSD License" (no version/variant), "GNU General Public License (GPL)" and other unversioned families.
 */
const CLASSIFIER_SPDX = new Map<string, string>([
  ['License :: OSI Approved :: MIT License', 'MIT'],
  ['License :: OSI Approved :: MIT No Attribution License (MIT-0)', 'MIT-0'],
  ['License :: OSI Approved :: ISC License (ISCL)', 'ISC'],
  ['License :: OSI Approved :: Mozilla Public License 1.1 (MPL 1.1)', 'MPL-1.1'],
  ['License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)', 'MPL-2.0'],
  ['License :: OSI Approved :: GNU General Public License v2 (GPLv2)', 'GPL-2.0-only'],
  ['License :: OSI Approved :: GNU General Public License v2 or later (GPLv2+)', 'GPL-2.0-or-later'],
  ['License :: OSI Approved :: GNU General Public License v3 (GPLv3)', 'GPL-3.0-only'],
  ['License :: OSI Approved :: GNU General Public License v3 or later (GPLv3+)', 'GPL-3.0-or-later'],
  ['License :: OSI Approved :: GNU Lesser General Public License v2 (LGPLv2)', 'LGPL-2.0-only'],
  ['License :: OSI Approved :: GNU Lesser General Public License v2 or later (LGPLv2+)', 'LGPL-2.0-or-later'],
  ['License :: OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)', 'LGPL-3.0-only'],
  ['License :: OSI Approved :: GNU Lesser General Public License v3 or later (LGPLv3+)', 'LGPL-3.0-or-later'],
  ['License :: OSI Approved :: GNU Affero General Public License v3', 'AGPL-3.0-only'],
  ['License :: OSI Approved :: GNU Affero General Public License v3 or later (AGPLv3+)', 'AGPL-3.0-or-later'],
  ['License :: OSI Approved :: Python Software Foundation License', 'PSF-2.0'],
  ['License :: OSI Approved :: The Unlicense (Unlicense)', 'Unlicense'],
  ['License :: OSI Approved :: Boost Software License 1.0 (BSL-1.0)', 'BSL-1.0'],
  ['License :: OSI Approved :: Eclipse Public License 1.0 (EPL-1.0)', 'EPL-1.0'],
  ['License :: OSI Approved :: Eclipse Public License 2.0 (EPL-2.0)', 'EPL-2.0'],
  ['License :: OSI Approved :: European Union Public Licence 1.2 (EUPL 1.2)', 'EUPL-1.2'],
  ['License :: OSI Approved :: Universal Permissive License (UPL)', 'UPL-1.0'],
  ['License :: CC0 1.0 Universal (CC0 1.0) Public Domain Dedication', 'CC0-1.0'],
]);

/** Longer `License` values are prose (copyright notices, license texts), not names. */
const MAX_LICENSE_NAME_LENGTH = 120;

function canonicalSpdxId(token: string): string | undefined {
  if (/^LicenseRef-[A-Za-z0-9.-]+$/.test(token)) return token;
  // `GPL-2.0+` is the pre-3.0 SPDX spelling of "or later".
  const plus = token.endsWith('+') ? '+' : '';
  const id = KNOWN_SPDX_IDS.get(token.slice(0, token.length - plus.length).toLowerCase());
  return id ? id + plus : undefined;
}

/** The value re-cased as an SPDX expression when every token is a known id or operator; otherwise undefined. */
export function asSpdxExpression(value: string): string | undefined {
  let recognised = true;
  let ids = 0;
  const expression = value.replace(/[^\s()]+/g, (token) => {
    const operator = token.toUpperCase();
    if (operator === 'AND' || operator === 'OR' || operator === 'WITH') return operator;
    const id = canonicalSpdxId(token);
    if (id) ids++;
    else recognised = false;
    return id ?? token;
  });
  return recognised && ids > 0 ? expression.replace(/\s+/g, ' ').trim() : undefined;
}

function usableLicenseField(license: string | undefined): string | undefined {
  const value = license?.trim();
  if (!value || value.toUpperCase() === 'UNKNOWN') return undefined;
  if (value.includes('\n') || value.length > MAX_LICENSE_NAME_LENGTH) return undefined;
  return value;
}

/** SPDX id of a license classifier, or undefined when the classifier does not pin one down. */
export function spdxFromClassifier(classifier: string): string | undefined {
  return CLASSIFIER_SPDX.get(classifier.replace(/\s+/g, ' ').trim());
}

export interface PythonLicenseFields {
  licenseExpression?: string;
  license?: string;
  classifiers: string[];
}

export function pythonLicenses({ licenseExpression, license, classifiers }: PythonLicenseFields): string[] {
  const expression = licenseExpression?.trim();
  if (expression) return [asSpdxExpression(expression) ?? expression];

  const declared = usableLicenseField(license);
  const recognised = declared && (LICENSE_ALIASES.get(declared.toLowerCase().replace(/\s+/g, ' ')) ?? asSpdxExpression(declared));
  if (recognised) return [recognised];

  // "License :: OSI Approved" alone is a category, not a license.
  const licenseClassifiers = classifiers.map((c) => c.trim()).filter((c) => c.startsWith('License ::') && c !== 'License :: OSI Approved');
  const mapped = licenseClassifiers.map(spdxFromClassifier);
  if (mapped.length > 0 && mapped.every((id) => id !== undefined)) return [...new Set(mapped as string[])];
  if (declared) return [declared];
  const named = licenseClassifiers.map((c, i) => mapped[i] ?? c.split('::').pop()!.trim());
  return [...new Set(named)];
}
