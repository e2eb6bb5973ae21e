/**
 * The CycloneDX writer (VEX and vulnerability reports): output must validate against the official CycloneDX 1.5 and
 * 1.6 JSON and XML schemas (shipped in @cyclonedx/cyclonedx-library's res/schema), hold together (every reference resolves, every bom-ref is unique), map every status and justification
 * as documented in src/vulns/vex/cyclonedx-vex.ts, and be deterministic.
 */
import { PackageURL } from 'packageurl-js';
import { describe, expect, it } from 'vitest';
import {
  CDX_JUSTIFICATION,
  writeCycloneDxJson,
  writeCycloneDxVex,
  writeCycloneDxXml,
  type CycloneDxStatement,
  type CycloneDxVexDocument,
  type CycloneDxVexSpecVersion,
  type CycloneDxVexVulnerability,
} from '../../../../src/vulns/vex/cyclonedx-vex.js';
import { writeOpenVex } from '../../../../src/vulns/vex/openvex.js';
import { cycloneDxJsonErrors, cycloneDxXmlErrors } from '../../../support/cyclonedx-schema.js';
import { missingTools } from '../../../support/tools.js';
import {
  ALL_JUSTIFICATIONS,
  ALL_STATUSES,
  DIGEST,
  DIGEST_HEX,
  INPUT,
  LIBC6,
  LIBC_BIN,
  LODASH,
  NO_PURL,
  ODD,
  ODD_NAME,
  ODD_VERSION,
  OPENSSL,
  SHUFFLED,
  T0,
  T1,
  T2,
  inputOf,
  statement,
} from './fixtures.js';

// The official schemas, shipped with @cyclonedx/cyclonedx-library.
const schemaErrors = (doc: unknown, version: CycloneDxVexSpecVersion) => cycloneDxJsonErrors(doc, version);

/** The rules of the spec a JSON schema cannot express; each problem as a sentence. */
function semanticProblems(doc: CycloneDxVexDocument): string[] {
  const problems: string[] = [];
  const refs = [doc.metadata.component['bom-ref']!, ...doc.components.map((c) => c['bom-ref']!), ...doc.vulnerabilities.map((v) => v['bom-ref'])];
  if (new Set(refs).size !== refs.length) problems.push('bom-refs are not unique');
  const componentRefs = new Set(doc.components.map((c) => c['bom-ref']));
  for (const v of doc.vulnerabilities) {
    if (v.affects.length === 0) problems.push(`${v['bom-ref']} affects nothing`);
    for (const a of v.affects) if (!componentRefs.has(a.ref)) problems.push(`${v['bom-ref']} affects unknown ${a.ref}`);
    if (v.analysis.justification && v.analysis.state !== 'not_affected') problems.push(`${v['bom-ref']}: justification without not_affected`);
  }
  for (const c of [doc.metadata.component, ...doc.components]) {
    if (c.purl === undefined) continue;
    try {
      PackageURL.fromString(c.purl);
    } catch {
      problems.push(`${c['bom-ref']} has an invalid purl ${c.purl}`);
    }
  }
  const used = new Set(doc.vulnerabilities.flatMap((v) => v.affects.map((a) => a.ref)));
  for (const c of doc.components) if (!used.has(c['bom-ref']!)) problems.push(`${c['bom-ref']} is affected by nothing`);
  return problems;
}

function expectValid(doc: CycloneDxVexDocument, version: CycloneDxVexSpecVersion = '1.5'): void {
  expect(schemaErrors(doc, version)).toEqual([]);
  expect(semanticProblems(doc)).toEqual([]);
  // Plain JSON: what is returned is what gets serialized.
  expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
}

/** The single vulnerability entry written for one input statement. */
function only(s: Parameters<typeof statement>[0]): CycloneDxVexVulnerability {
  const doc = writeCycloneDxVex(inputOf([statement(s)]));
  expectValid(doc);
  expect(doc.vulnerabilities).toHaveLength(1);
  return doc.vulnerabilities[0]!;
}

const affected = (v: CycloneDxVexVulnerability) => v.affects.map((a) => a.ref);

// ---------------------------------------------------------------------------------------------------------------

describe('the CycloneDX validators themselves', () => {
  it('reject what they should, so passing them means something', () => {
    const doc = writeCycloneDxVex(INPUT);
    const v0 = doc.vulnerabilities[0]!;
    const withAnalysis = (analysis: Record<string, unknown>) => ({ ...doc, vulnerabilities: [{ ...v0, analysis: { ...v0.analysis, ...analysis } }] });
    for (const version of ['1.5', '1.6'] as const) {
      expect(schemaErrors(doc, version)).toEqual([]);
      expect(schemaErrors({ ...doc, serialNumber: 'urn:uuid:not-a-uuid' }, version)).not.toEqual([]);
      expect(schemaErrors({ ...doc, bomFormat: 'SPDX' }, version)).not.toEqual([]);
      expect(schemaErrors(withAnalysis({ state: 'affected' }), version)).not.toEqual([]);
      expect(schemaErrors(withAnalysis({ justification: 'fix_not_planned' }), version)).not.toEqual([]);
      expect(schemaErrors(withAnalysis({ response: ['wont_fix'] }), version)).not.toEqual([]);
      expect(schemaErrors(withAnalysis({ lastUpdated: 'yesterday' }), version)).not.toEqual([]);
      expect(schemaErrors(withAnalysis({ vigil: true }), version)).not.toEqual([]);
      expect(schemaErrors({ ...doc, components: [{ ...doc.components[0], type: 'package' }] }, version)).not.toEqual([]);
      expect(schemaErrors({ ...doc, vulnerabilities: [{ ...v0, references: [{ id: 'CVE-1' }] }] }, version)).not.toEqual([]);
    }
    expect(semanticProblems({ ...doc, vulnerabilities: [{ ...v0, affects: [{ ref: 'nowhere' }] }] })).toContain(`${v0['bom-ref']} affects unknown nowhere`);
    expect(semanticProblems({ ...doc, components: [...doc.components, doc.components[0]!] })).toContain('bom-refs are not unique');
  });
});

describe('writeCycloneDxVex', () => {
  for (const version of ['1.5', '1.6'] as const) {
    it(`validates against the official CycloneDX ${version} JSON schema`, () => {
      for (const input of [INPUT, ODD, inputOf([]), inputOf([], { imageName: undefined })]) {
        const doc = writeCycloneDxVex(input, version);
        expect(doc.specVersion).toBe(version);
        expect(doc.$schema).toBe(`http://cyclonedx.org/schema/bom-${version}.schema.json`);
        expectValid(doc, version);
      }
    });
  }

  it('defaults to CycloneDX 1.5, and 1.6 differs only in the version', () => {
    const v15 = writeCycloneDxVex(INPUT);
    expect(v15.specVersion).toBe('1.5');
    const { specVersion: _a, $schema: _b, ...rest15 } = v15;
    const { specVersion: _c, $schema: _d, ...rest16 } = writeCycloneDxVex(INPUT, '1.6');
    expect(rest16).toEqual(rest15);
  });

  it('describes the image, the tool and the author in the metadata', () => {
    const doc = writeCycloneDxVex(INPUT);
    expect(doc).toMatchObject({ bomFormat: 'CycloneDX', version: 1, serialNumber: INPUT.documentId });
    expect(doc.metadata).toEqual({
      // Written by the library, in milliseconds.
      timestamp: new Date(T0).toISOString(),
      tools: { components: [{ type: 'application', name: 'vigil', version: '0.1.0' }] },
      authors: [{ name: 'acme-security' }],
      component: {
        type: 'container',
        'bom-ref': `image-${DIGEST}`,
        name: 'docker.io/library/debian',
        version: DIGEST,
        purl: `pkg:oci/debian@${DIGEST}?repository_url=docker.io%2Flibrary%2Fdebian`,
      },
    });
    const anonymous = writeCycloneDxVex({ ...INPUT, imageName: undefined }).metadata.component;
    expect(anonymous).toMatchObject({ name: DIGEST, purl: `pkg:oci/${DIGEST_HEX}@${DIGEST}` });
  });

  it('names the image as the OpenVEX writer does', () => {
    for (const imageName of [INPUT.imageName, undefined, ODD.imageName]) {
      const input = { ...INPUT, imageName };
      expect(writeCycloneDxVex(input).metadata.component.purl).toBe(writeOpenVex(input).statements[0]!.products[0]!['@id']);
    }
  });

  it('writes one component per distinct package, by purl when there is one', () => {
    const doc = writeCycloneDxVex(INPUT);
    expect(doc.components.map((c) => c['bom-ref'])).toEqual([
      expect.stringMatching(/^component-[0-9a-f]{16}$/),
      LIBC_BIN.purl,
      LIBC6.purl,
      OPENSSL.purl,
      LODASH.purl,
      'pkg:pypi/requests@2.25.0',
    ]);
    expect(doc.components.find((c) => c.name === 'libc6')).toEqual({
      type: 'library',
      'bom-ref': LIBC6.purl,
      name: 'libc6',
      version: '2.36-9+deb12u4',
      purl: LIBC6.purl,
      properties: [{ name: 'vigil:package:type', value: 'dpkg' }],
    });
  });

  it('gives a package without purl a stable generated ref and no made-up purl', () => {
    const [component] = writeCycloneDxVex(inputOf([statement({ product: NO_PURL, status: 'fixed' })])).components;
    expect(component).toEqual({
      type: 'library',
      'bom-ref': expect.stringMatching(/^component-[0-9a-f]{16}$/),
      name: 'custom-tool',
      version: '1.2.3',
      properties: [{ name: 'vigil:package:type', value: 'binary' }],
    });
    const refOf = (product: typeof NO_PURL) => writeCycloneDxVex(inputOf([statement({ product, status: 'fixed' })])).components[0]!['bom-ref'];
    expect(refOf(NO_PURL)).toBe(component!['bom-ref']);
    expect(refOf({ ...NO_PURL, purl: 'not a purl' })).toBe(component!['bom-ref']);
    expect(refOf({ ...NO_PURL, version: '1.2.4' })).not.toBe(component!['bom-ref']);
    // Known only by its purl: named as the purl names it.
    const byPurl = writeCycloneDxVex(inputOf([statement({ product: { purl: 'pkg:npm/%40scope/left%20pad@1.0.0', name: '', version: '', type: '' }, status: 'fixed' })]));
    expectValid(byPurl);
    expect(byPurl.components).toEqual([{ type: 'library', 'bom-ref': 'pkg:npm/%40scope/left%20pad@1.0.0', name: 'left pad', purl: 'pkg:npm/%40scope/left%20pad@1.0.0' }]);
  });

  it('maps every status to its analysis state', () => {
    const expected = { not_affected: 'not_affected', affected: 'exploitable', fixed: 'resolved', under_investigation: 'in_triage' } as const;
    for (const status of ALL_STATUSES) {
      const v = only({ product: LIBC6, status, timestamp: T2 });
      expect(v.analysis).toEqual({ state: expected[status], lastUpdated: T2 });
    }
  });

  it('maps every justification, keeping the recorded label in the detail', () => {
    const expected = {
      component_not_present: 'code_not_present',
      vulnerable_code_not_present: 'code_not_present',
      vulnerable_code_not_in_execute_path: 'code_not_reachable',
      vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
      inline_mitigations_already_exist: 'protected_by_mitigating_control',
      fix_not_planned: undefined,
    } as const;
    expect(CDX_JUSTIFICATION).toEqual(expected);
    for (const justification of ALL_JUSTIFICATIONS) {
      const { analysis } = only({ product: LIBC6, status: 'not_affected', justification });
      if (justification === 'fix_not_planned') {
        expect(analysis).toEqual({ state: 'not_affected', response: ['will_not_fix'], detail: 'VEX justification: fix_not_planned (no fix is planned)', lastUpdated: T1 });
      } else {
        expect(analysis).toEqual({ state: 'not_affected', justification: expected[justification], detail: `VEX justification: ${justification}`, lastUpdated: T1 });
      }
    }
  });

  it('writes justifications only with not_affected, and will_not_fix whatever the status', () => {
    for (const status of ['affected', 'fixed', 'under_investigation'] as const) {
      const { analysis } = only({ product: LIBC6, status, justification: 'vulnerable_code_not_present' });
      expect(analysis).not.toHaveProperty('justification');
      expect(analysis.detail).toBe('VEX justification: vulnerable_code_not_present');
      expect(only({ product: LIBC6, status, justification: 'fix_not_planned' }).analysis.response).toEqual(['will_not_fix']);
    }
  });

  it('writes a valid BOM for every status and justification combination', () => {
    const statements = ALL_STATUSES.flatMap((status) =>
      [undefined, ...ALL_JUSTIFICATIONS].map((justification, i) =>
        statement({ vulnerabilityId: `CVE-2024-${1000 + i}`, product: LIBC6, status, ...(justification ? { justification } : {}) }),
      ),
    );
    for (const version of ['1.5', '1.6'] as const) {
      const doc = writeCycloneDxVex(inputOf(statements), version);
      expectValid(doc, version);
      expect(doc.vulnerabilities).toHaveLength(statements.length);
    }
  });

  it('combines the impact statement, action statement and status notes into the detail', () => {
    const v = only({
      product: LIBC6,
      status: 'affected',
      justification: 'fix_not_planned',
      impactStatement: 'Remote code execution.',
      actionStatement: 'Replace the image.',
      statusNotes: ' Seen in production. ',
    });
    expect(v.analysis).toEqual({
      state: 'exploitable',
      response: ['will_not_fix'],
      detail: 'VEX justification: fix_not_planned (no fix is planned)\nImpact statement: Remote code execution.\nAction statement: Replace the image.\nStatus notes: Seen in production.',
      lastUpdated: T1,
    });
    expect(only({ product: LIBC6, status: 'affected', impactStatement: ' ', statusNotes: '' }).analysis).not.toHaveProperty('detail');
  });

  it('describes the vulnerability: source from the id, aliases as references', () => {
    const doc = writeCycloneDxVex(INPUT);
    const looney = doc.vulnerabilities.find((v) => v.id === 'CVE-2023-4911')!;
    expect(looney).toMatchObject({
      source: { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2023-4911' },
      references: [{ id: 'DSA-5514-1', source: { name: 'Debian Security Tracker' } }],
      description: 'Buffer overflow in the dynamic loader (GLIBC_TUNABLES).',
    });
    const pysec = doc.vulnerabilities.find((v) => v.id === 'PYSEC-2023-74')!;
    expect(pysec.source).toEqual({ name: 'PyPI Advisory Database' });
    expect(pysec.references).toEqual([
      { id: 'CVE-2023-32681', source: { name: 'NVD' } },
      { id: 'GHSA-j8r2-6x86-q33q', source: { name: 'GitHub Advisories' } },
    ]);
    // Unknown publishers are not guessed.
    const unknown = only({ vulnerabilityId: 'ACME-2024-1', aliases: ['ZZ-1'], product: LIBC6, status: 'fixed' });
    expect(unknown).not.toHaveProperty('source');
    expect(unknown.references).toEqual([{ id: 'ZZ-1', source: {} }]);
  });

  it('groups packages into one vulnerability only when the analysis is identical', () => {
    const doc = writeCycloneDxVex(INPUT);
    const looney = doc.vulnerabilities.filter((v) => v.id === 'CVE-2023-4911');
    expect(looney.map((v) => [v.analysis.state, affected(v)])).toEqual(
      expect.arrayContaining([
        ['not_affected', [LIBC_BIN.purl, LIBC6.purl]],
        ['exploitable', [doc.components[0]!['bom-ref']]],
      ]),
    );
    expect(looney).toHaveLength(2);
    expect(new Set(looney.map((v) => v['bom-ref'])).size).toBe(2);

    const base = { product: LIBC6, status: 'not_affected' as const, justification: 'component_not_present' as const };
    const variants = [
      statement(base),
      statement({ ...base, product: LIBC_BIN }),
      // Same CycloneDX justification, different recorded label: the detail differs, so apart.
      statement({ ...base, product: OPENSSL, justification: 'vulnerable_code_not_present' }),
      statement({ ...base, product: LODASH, impactStatement: 'Different.' }),
      statement({ ...base, product: NO_PURL, timestamp: T2 }),
      statement({ ...base, product: LIBC6, statusNotes: 'A note.' }),
    ];
    const grouped = writeCycloneDxVex(inputOf(variants));
    expectValid(grouped);
    expect(grouped.vulnerabilities).toHaveLength(5);
    expect(grouped.vulnerabilities.map(affected)).toEqual(
      expect.arrayContaining([[LIBC_BIN.purl, LIBC6.purl], [OPENSSL.purl], [LIBC6.purl], [LODASH.purl], [grouped.components[0]!['bom-ref']]]),
    );
    // The same package twice is affected once.
    expect(affected(writeCycloneDxVex(inputOf([statement(base), statement(base)])).vulnerabilities[0]!)).toEqual([LIBC6.purl]);
  });

  it('keeps an entry’s bom-ref when other entries come and go', () => {
    const ref = (statements: Parameters<typeof inputOf>[0]) =>
      writeCycloneDxVex(inputOf(statements)).vulnerabilities.find((v) => v.analysis.state === 'not_affected')!['bom-ref'];
    const notAffected = statement({ product: LIBC6, status: 'not_affected', justification: 'component_not_present' });
    expect(ref([notAffected])).toBe(ref([notAffected, statement({ product: LIBC_BIN, status: 'affected' })]));
    expect(ref([notAffected])).toMatch(/^vulnerability-CVE-2023-4911-[0-9a-f]{16}$/);
  });

  it('uses the caller’s urn:uuid as serial number, and a stable UUID derived from any other id', () => {
    const serialOf = (documentId: string) => writeCycloneDxVex({ ...INPUT, documentId }).serialNumber;
    expect(serialOf('urn:uuid:0F8E2F4C-9D1A-4B7E-8C3A-2D5E6F7A8B9C')).toBe('urn:uuid:0f8e2f4c-9d1a-4b7e-8c3a-2d5e6f7a8b9c');
    expect(serialOf('0f8e2f4c-9d1a-4b7e-8c3a-2d5e6f7a8b9c')).toBe('urn:uuid:0f8e2f4c-9d1a-4b7e-8c3a-2d5e6f7a8b9c');
    const derived = serialOf('https://vigil.example.com/vex/42');
    expect(derived).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(serialOf('https://vigil.example.com/vex/42')).toBe(derived);
    expect(serialOf('https://vigil.example.com/vex/43')).not.toBe(derived);
    // OpenVEX and CycloneDX exports of one document id share the UUID.
    expect(writeOpenVex({ ...INPUT, documentId: 'export 42' })['@id']).toBe(serialOf('export 42'));
  });

  it('is deterministic, whatever order the statements arrive in', () => {
    const first = writeCycloneDxVex(INPUT);
    expect(writeCycloneDxVex(INPUT)).toEqual(first);
    expect(JSON.stringify(writeCycloneDxVex(INPUT))).toBe(JSON.stringify(first));
    expect(JSON.stringify(writeCycloneDxVex(SHUFFLED))).toBe(JSON.stringify(first));
    expect(JSON.stringify(writeCycloneDxVex(SHUFFLED, '1.6'))).toBe(JSON.stringify(writeCycloneDxVex(INPUT, '1.6')));
    expect(first.vulnerabilities.map((v) => v.id)).toEqual(['CVE-2023-0464', 'CVE-2023-4911', 'CVE-2023-4911', 'CVE-2023-5678', 'GHSA-35jh-r3h4-6jhm', 'PYSEC-2023-74']);
    // Two rows with one purl but different names: the same one wins in either order.
    const twin = { ...LODASH, name: 'lodash-twin' };
    const a = writeCycloneDxVex(inputOf([statement({ product: LODASH, status: 'fixed' }), statement({ product: twin, status: 'fixed', vulnerabilityId: 'CVE-1' })]));
    const b = writeCycloneDxVex(inputOf([statement({ product: twin, status: 'fixed', vulnerabilityId: 'CVE-1' }), statement({ product: LODASH, status: 'fixed' })]));
    expect(a).toEqual(b);
    expect(a.components).toHaveLength(1);
  });

  it('does not change its input', () => {
    const copy = structuredClone(INPUT);
    writeCycloneDxVex(INPUT);
    expect(INPUT).toEqual(copy);
  });

  it('escapes odd characters in names and texts', () => {
    for (const version of ['1.5', '1.6'] as const) {
      const doc = writeCycloneDxVex(ODD, version);
      expectValid(doc, version);
      expect(doc.metadata.authors).toEqual([{ name: ODD.author }]);
      expect(doc.metadata.component.name).toBe('localhost:5000/My Team/App "x"');
      expect(doc.serialNumber).toMatch(/^urn:uuid:/);
      const odd = doc.components.find((c) => c.name === ODD_NAME)!;
      expect(odd).toMatchObject({ version: ODD_VERSION, properties: [{ name: 'vigil:package:type', value: 'java' }] });
      expect(odd).not.toHaveProperty('purl');
      // A stored purl that is none (blanks) is not written; the package keeps its name.
      const fallback = doc.components.find((c) => c.name === 'fallback name')!;
      expect(fallback).not.toHaveProperty('purl');
      expect(fallback).not.toHaveProperty('properties');
      const v = doc.vulnerabilities.find((x) => x.analysis.state === 'exploitable')!;
      expect(v).toMatchObject({
        id: 'VIGIL-"odd"\\1',
        source: { url: 'not a url' },
        references: [{ id: 'ALIAS <1>', source: {} }],
        description: 'line 1\nline 2 "quoted" \u0000 \u2028 end',
      });
      expect(v.analysis.detail).toBe('Action statement: Run `rm -rf "/opt/x"` \\ then {restart}');
      expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    }
  });

  it('refuses statements no valid document can be made of', () => {
    expect(() => writeCycloneDxVex(inputOf([statement({ vulnerabilityId: '', product: LIBC6, status: 'fixed' })]))).toThrow(/vulnerability id/);
    expect(() => writeCycloneDxVex(inputOf([statement({ product: { purl: '', name: '', version: '', type: '' }, status: 'fixed' })]))).toThrow(RangeError);
    expect(() => writeCycloneDxVex(inputOf([statement({ product: LIBC6, status: 'exploitable' as never })]))).toThrow(/status/);
    expect(() => writeCycloneDxVex({ ...INPUT, author: '  ' })).toThrow(/author/);
    expect(() => writeCycloneDxVex({ ...INPUT, timestamp: '2024-03-02 08:30' })).toThrow(/RFC 3339/);
    expect(() => writeCycloneDxVex(inputOf([statement({ product: LIBC6, status: 'fixed', timestamp: '2024-02-30T25:00:00Z' })]))).toThrow(/timestamp/);
    expect(() => writeCycloneDxVex({ ...INPUT, imageDigest: '' })).toThrow(/digest/);
  });
});

describe('writeCycloneDxXml', () => {
  it.skipIf(missingTools('xmllint'))('validates against the official CycloneDX 1.5 and 1.6 XML schemas', () => {
    for (const version of ['1.5', '1.6'] as const)
      for (const input of [INPUT, ODD, inputOf([]), inputOf([], { imageName: undefined })]) {
        const xml = writeCycloneDxXml(input, version);
        expect(xml.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/${version}"`)).toBe(true);
        expect(cycloneDxXmlErrors(xml, version)).toEqual([]);
      }
  });

  it.skipIf(missingTools('xmllint'))('is checked by a validator that rejects what it should', () => {
    const xml = writeCycloneDxXml(INPUT);
    expect(cycloneDxXmlErrors(xml.replace('<state>not_affected</state>', '<state>affected</state>'), '1.6')).not.toEqual([]);
    expect(cycloneDxXmlErrors(xml.replace(/serialNumber="[^"]*"/, 'serialNumber="urn:uuid:not-a-uuid"'), '1.6')).not.toEqual([]);
    expect(cycloneDxXmlErrors(xml.replace('<lastUpdated>', '<lastUpdated>yesterday'), '1.6')).not.toEqual([]);
  });

  it('carries what the JSON carries: each vulnerability with its analysis and times, escaped', () => {
    const json = writeCycloneDxVex(INPUT, '1.6');
    const xml = writeCycloneDxXml(INPUT, '1.6');
    expect(xml.match(/<vulnerability bom-ref=/g)).toHaveLength(json.vulnerabilities.length);
    for (const v of json.vulnerabilities) expect(xml).toContain(`<vulnerability bom-ref="${v['bom-ref']}"><id>${v.id}</id>`);
    expect(xml).toContain(`<detail>VEX justification: vulnerable_code_not_in_execute_path\nImpact statement: setuid binaries are removed from the image.</detail><lastUpdated>${T1}</lastUpdated>`);
    expect(xml).toContain('?arch=amd64&amp;distro=debian-12');
    const odd = writeCycloneDxXml(ODD);
    // NUL cannot be written in XML 1.0 at all: it becomes U+FFFD; markup characters are escaped.
    expect(odd).toContain('<description>line 1\nline 2 "quoted" \uFFFD \u2028 end</description>');
    expect(odd).toContain('<id>ALIAS &lt;1&gt;</id>');
  });
});

describe('vulnerability reports (statements with ratings, assessed or not)', () => {
  const rated = (over: Partial<CycloneDxStatement> = {}): CycloneDxStatement => ({
    vulnerabilityId: 'CVE-2023-4911',
    aliases: ['DSA-5514-1'],
    product: LIBC6,
    timestamp: T1,
    ratings: [
      { source: { name: 'debian' }, severity: 'high', method: 'other' },
      { source: { name: 'debian' }, score: 7.8, severity: 'high', method: 'CVSSv31', vector: 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H' },
    ],
    ...over,
  });
  const report = (statements: CycloneDxStatement[], analysisDetail = true) => ({ ...INPUT, statements, analysisDetail });

  it('writes ratings, and an analysis only for assessed statements', () => {
    for (const version of ['1.5', '1.6'] as const) {
      const doc = writeCycloneDxJson(report([rated(), rated({ product: OPENSSL, vulnerabilityId: 'CVE-2023-5678', status: 'fixed', statusNotes: 'patched' })]), version);
      expect(schemaErrors(doc, version)).toEqual([]);
      const [looney, fixed] = doc.vulnerabilities;
      expect(looney).not.toHaveProperty('analysis');
      expect(looney!.ratings).toEqual(rated().ratings);
      expect(fixed!.analysis).toEqual({ state: 'resolved', detail: 'Status notes: patched', lastUpdated: T1 });
      if (!missingTools('xmllint')) expect(cycloneDxXmlErrors(writeCycloneDxXml(report([rated(), rated({ status: 'not_affected', justification: 'component_not_present' })]), version), version)).toEqual([]);
    }
  });

  it('leaves the detail out when asked to', () => {
    const doc = writeCycloneDxJson(report([rated({ status: 'not_affected', justification: 'component_not_present', impactStatement: 'gone' })], false));
    expect(doc.vulnerabilities[0]!.analysis).toEqual({ state: 'not_affected', justification: 'code_not_present', lastUpdated: T1 });
  });

  it('groups packages whose ratings and analysis agree', () => {
    const doc = writeCycloneDxJson(report([rated(), rated({ product: LIBC_BIN }), rated({ product: OPENSSL, ratings: [] })]));
    expect(doc.vulnerabilities.map((v) => v.affects.map((a) => a.ref))).toEqual(expect.arrayContaining([[LIBC_BIN.purl, LIBC6.purl], [OPENSSL.purl]]));
    expect(doc.vulnerabilities).toHaveLength(2);
  });
});
