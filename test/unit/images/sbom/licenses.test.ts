/** Sorting declared license strings into SPDX ids, SPDX expressions and free-form names, and the stable ids. */
import { describe, expect, it } from 'vitest';
import { classifyLicense, conjoin, licenseRefsIn } from '../../../../src/images/sbom/licenses.js';
import { identifyPackages } from '../../../../src/images/sbom/package-ids.js';
import { contentId, nameBasedUuid } from '../../../../src/images/sbom/stable-ids.js';
import type { SbomPackage } from '../../../../src/images/sbom/input.js';

describe('classifyLicense', () => {
  it('recognises listed SPDX ids, fixing only their case', () => {
    expect(classifyLicense('MIT')).toEqual({ kind: 'id', id: 'MIT' });
    expect(classifyLicense(' apache-2.0 ')).toEqual({ kind: 'id', id: 'Apache-2.0' });
    expect(classifyLicense('GPL-2.0')).toEqual({ kind: 'id', id: 'GPL-2.0' }); // deprecated, still listed
  });

  it('canonicalises valid expressions: operator case, id case, parentheses only where precedence needs them', () => {
    expect(classifyLicense('mit or apache-2.0')).toEqual({ kind: 'expression', expression: 'MIT OR Apache-2.0' });
    expect(classifyLicense('(MIT AND BSD-3-Clause) OR GPL-2.0-only')).toEqual({ kind: 'expression', expression: '(MIT AND BSD-3-Clause) OR GPL-2.0-only' });
    expect(classifyLicense('MIT AND (BSD-3-Clause OR GPL-2.0-only)')).toEqual({ kind: 'expression', expression: 'MIT AND (BSD-3-Clause OR GPL-2.0-only)' });
    expect(classifyLicense('GPL-2.0+')).toEqual({ kind: 'expression', expression: 'GPL-2.0+' });
    expect(classifyLicense('GPL-2.0-only WITH Classpath-exception-2.0')).toEqual({
      kind: 'expression',
      expression: 'GPL-2.0-only WITH Classpath-exception-2.0',
    });
    expect(classifyLicense('LicenseRef-Acme')).toEqual({ kind: 'expression', expression: 'LicenseRef-Acme' });
  });

  it('keeps everything else as a name, guessing nothing', () => {
    for (const name of ['BSD', 'GPLv2+', 'Apache License, Version 2.0', 'Public Domain', 'MIT or later', 'DocumentRef-x:LicenseRef-y'])
      expect(classifyLicense(name)).toEqual({ kind: 'name', name });
  });

  it('treats placeholders as no license information', () => {
    for (const value of ['', '   ', 'NOASSERTION', 'NONE', 'UNKNOWN', 'unknown']) expect(classifyLicense(value)).toBeUndefined();
  });
});

describe('conjoin and licenseRefsIn', () => {
  it('ANDs expressions, parenthesising compound ones and dropping duplicates', () => {
    expect(conjoin(['MIT'])).toBe('MIT');
    expect(conjoin(['MIT', 'MIT OR Apache-2.0', 'MIT', 'LicenseRef-X'])).toBe('MIT AND (MIT OR Apache-2.0) AND LicenseRef-X');
  });

  it('finds the LicenseRefs an expression uses', () => {
    expect(licenseRefsIn('MIT OR (LicenseRef-A AND LicenseRef-B.2)')).toEqual(['LicenseRef-A', 'LicenseRef-B.2']);
    expect(licenseRefsIn('not an expression')).toEqual([]);
  });
});

describe('stable ids', () => {
  it('are RFC 4122 version-5 UUIDs, pinned: changing them would change every exported serial number', () => {
    expect(nameBasedUuid('')).toBe('5a3f22a2-1e93-5918-88c1-90a1c9b550bf');
    expect(nameBasedUuid('spdx:x')).toBe('bb4815f0-e68d-5819-8dfd-61ca2ea7efa2');
    expect(contentId(['a', 'b'])).toMatch(/^[0-9a-f]{16}$/);
    expect(contentId(['a', 'b'])).not.toBe(contentId(['ab']));
  });

  it('number exact duplicate packages instead of colliding', () => {
    const pkg: SbomPackage = { type: 'npm', name: 'a', version: '1', licenses: [], locations: ['/x'], purl: 'pkg:npm/a@1', cpes: [], metadata: {} };
    const ids = identifyPackages([pkg, { ...pkg }, { ...pkg, version: '2', purl: 'pkg:npm/a@2' }]).map((p) => p.id);
    expect(ids[1]).toBe(`${ids[0]}-2`);
    expect(new Set(ids).size).toBe(3);
  });
});
