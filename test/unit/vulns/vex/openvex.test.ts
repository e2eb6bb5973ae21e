/**
 * The OpenVEX writer: output must pass a schema written from the OpenVEX v0.2.0 spec (test/support/openvex-schema.ts;
 * the official schema is not available offline) and the rules a schema cannot express, for every status and
 * justification, and be deterministic.
 */
import { PackageURL } from 'packageurl-js';
import { describe, expect, it } from 'vitest';
import { validateOpenVex } from '../../../support/openvex-schema.js';
import {
  FIX_NOT_PLANNED_IMPACT,
  NO_ACTION_STATEMENT,
  NO_IMPACT_STATEMENT,
  OPENVEX_CONTEXT,
  writeOpenVex,
  type OpenVexDocument,
  type OpenVexStatement,
} from '../../../../src/vulns/vex/openvex.js';
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

const IMAGE_PURL = `pkg:oci/debian@${DIGEST}?repository_url=docker.io%2Flibrary%2Fdebian`;

/** The rules of the spec a JSON schema cannot express; each problem as a sentence. */
function semanticProblems(doc: OpenVexDocument, imageDigest: string): string[] {
  const problems: string[] = [];
  for (const [i, s] of doc.statements.entries()) {
    for (const product of s.products) {
      const image = PackageURL.fromString(product['@id']);
      if (image.type !== 'oci' || image.version !== imageDigest) problems.push(`statement ${i}: product ${product['@id']} is not the image`);
      if (product.subcomponents.length === 0) problems.push(`statement ${i}: no subcomponent (it would speak for the whole image)`);
      for (const sub of product.subcomponents) {
        try {
          PackageURL.fromString(sub['@id']);
        } catch {
          problems.push(`statement ${i}: subcomponent ${sub['@id']} is not a purl`);
        }
      }
    }
    if (s.vulnerability.aliases?.includes(s.vulnerability.name)) problems.push(`statement ${i}: the name is among the aliases`);
  }
  return problems;
}

function expectValid(doc: OpenVexDocument, imageDigest = DIGEST): void {
  const ok = validateOpenVex(doc);
  expect(ok ? [] : validateOpenVex.errors).toEqual([]);
  expect(semanticProblems(doc, imageDigest)).toEqual([]);
  // Plain JSON: what is returned is what gets serialized.
  expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
}

/** The single statement written for one input statement. */
function only(s: Parameters<typeof statement>[0]): OpenVexStatement {
  const doc = writeOpenVex(inputOf([statement(s)]));
  expectValid(doc);
  expect(doc.statements).toHaveLength(1);
  return doc.statements[0]!;
}

const subcomponentIds = (s: OpenVexStatement) => s.products.flatMap((p) => p.subcomponents.map((c) => c['@id']));

describe('the OpenVEX schema itself', () => {
  it('rejects what the spec forbids, so passing it means something', () => {
    const doc = writeOpenVex(INPUT);
    const withStatement = (over: Record<string, unknown>, drop: string[] = []) => {
      const s: Record<string, unknown> = { ...doc.statements[0]!, ...over };
      for (const k of drop) delete s[k];
      return { ...doc, statements: [s] };
    };
    expect(validateOpenVex(doc)).toBe(true);
    expect(validateOpenVex({ ...doc, statements: [] })).toBe(false);
    expect(validateOpenVex({ ...doc, '@context': 'https://openvex.dev/ns' })).toBe(false);
    expect(validateOpenVex({ ...doc, version: 0 })).toBe(false);
    expect(validateOpenVex({ ...doc, timestamp: '2024-03-02 08:30' })).toBe(false);
    expect(validateOpenVex({ ...doc, '@id': 'not an iri' })).toBe(false);
    expect(validateOpenVex({ ...doc, extra: true })).toBe(false);
    const { author: _author, ...noAuthor } = doc;
    expect(validateOpenVex(noAuthor)).toBe(false);
    // not_affected needs a justification or an impact statement, and only the five labels are justifications.
    expect(validateOpenVex(withStatement({ status: 'not_affected' }, ['justification', 'impact_statement']))).toBe(false);
    expect(validateOpenVex(withStatement({ status: 'not_affected', justification: 'fix_not_planned' }, ['impact_statement']))).toBe(false);
    expect(validateOpenVex(withStatement({ status: 'not_affected', justification: 'component_not_present' }, ['impact_statement']))).toBe(true);
    expect(validateOpenVex(withStatement({ status: 'not_affected', impact_statement: 'x' }, ['justification']))).toBe(true);
    // affected needs an action statement; the status-specific fields stay with their status.
    expect(validateOpenVex(withStatement({ status: 'affected' }, ['justification', 'impact_statement']))).toBe(false);
    expect(validateOpenVex(withStatement({ status: 'affected', action_statement: 'Update.' }, ['justification', 'impact_statement']))).toBe(true);
    expect(validateOpenVex(withStatement({ status: 'fixed' }))).toBe(false);
    expect(validateOpenVex(withStatement({ status: 'fixed' }, ['justification', 'impact_statement']))).toBe(true);
    expect(validateOpenVex(withStatement({ status: 'fixed', action_statement: 'Update.' }, ['justification', 'impact_statement']))).toBe(false);
    expect(validateOpenVex(withStatement({ status: 'unknown' }))).toBe(false);
    // A statement must identify its product and vulnerability.
    expect(validateOpenVex(withStatement({}, ['products']))).toBe(false);
    expect(validateOpenVex(withStatement({ products: [{}] }))).toBe(false);
    expect(validateOpenVex(withStatement({ vulnerability: { aliases: ['x'] } }))).toBe(false);
    expect(semanticProblems({ ...doc, statements: [{ ...doc.statements[0]!, products: [{ '@id': 'pkg:oci/x@sha256:1', subcomponents: [] }] }] }, DIGEST)).toHaveLength(2);
  });
});

describe('writeOpenVex', () => {
  it('writes a valid OpenVEX v0.2.0 document', () => {
    const doc = writeOpenVex(INPUT);
    expectValid(doc);
    expect(doc).toMatchObject({
      '@context': OPENVEX_CONTEXT,
      '@id': INPUT.documentId,
      author: 'acme-security',
      timestamp: T0,
      version: 1,
      tooling: 'vigil/0.1.0',
    });
    expect(Object.keys(doc)).toEqual(['@context', '@id', 'author', 'timestamp', 'version', 'tooling', 'statements']);
    // 7 input statements, two of which say the same thing: 6 statements.
    expect(doc.statements).toHaveLength(6);
    for (const s of doc.statements) expect(s.products).toEqual([{ '@id': IMAGE_PURL, subcomponents: expect.any(Array) }]);
  });

  it('names the image by an OCI purl from its repository and digest', () => {
    const doc = writeOpenVex(INPUT);
    const image = PackageURL.fromString(doc.statements[0]!.products[0]!['@id']);
    expect(image).toMatchObject({ type: 'oci', name: 'debian', version: DIGEST, qualifiers: { repository_url: 'docker.io/library/debian' } });
    // A tag or digest left on the name does not end up in the repository.
    for (const imageName of ['docker.io/library/debian:12', `docker.io/library/debian@${DIGEST}`, ' docker.io/library/debian ']) {
      expect(writeOpenVex({ ...INPUT, imageName }).statements[0]!.products[0]!['@id']).toBe(IMAGE_PURL);
    }
    // A registry port is no tag.
    expect(writeOpenVex({ ...INPUT, imageName: 'localhost:5000/team/app' }).statements[0]!.products[0]!['@id']).toBe(
      `pkg:oci/app@${DIGEST}?repository_url=localhost%3A5000%2Fteam%2Fapp`,
    );
  });

  it('names an image without repository by its digest alone', () => {
    for (const imageName of [undefined, '', '   ']) {
      const doc = writeOpenVex({ ...INPUT, imageName });
      expectValid(doc);
      expect(doc.statements[0]!.products[0]!['@id']).toBe(`pkg:oci/${DIGEST_HEX}@${DIGEST}`);
    }
  });

  it('writes each status with the fields the spec requires of it', () => {
    const notAffected = only({ product: LIBC6, status: 'not_affected', justification: 'component_not_present' });
    expect(notAffected).toMatchObject({ status: 'not_affected', justification: 'component_not_present' });
    expect(notAffected).not.toHaveProperty('action_statement');

    const affected = only({ product: LIBC6, status: 'affected', actionStatement: 'Update libc6.' });
    expect(affected).toMatchObject({ status: 'affected', action_statement: 'Update libc6.' });
    expect(affected).not.toHaveProperty('justification');
    expect(affected).not.toHaveProperty('impact_statement');

    const fixed = only({ product: LIBC6, status: 'fixed' });
    expect(Object.keys(fixed)).toEqual(['vulnerability', 'timestamp', 'products', 'status']);

    const investigating = only({ product: LIBC6, status: 'under_investigation', statusNotes: 'Triage started.' });
    expect(investigating).toEqual({
      vulnerability: { name: 'CVE-2023-4911' },
      timestamp: T1,
      products: [{ '@id': IMAGE_PURL, subcomponents: [{ '@id': LIBC6.purl }] }],
      status: 'under_investigation',
      status_notes: 'Triage started.',
    });
  });

  it('fills in what the spec requires but was not recorded, saying so', () => {
    expect(only({ product: LIBC6, status: 'affected' }).action_statement).toBe(NO_ACTION_STATEMENT);
    expect(only({ product: LIBC6, status: 'affected', actionStatement: '   ' }).action_statement).toBe(NO_ACTION_STATEMENT);
    const bare = only({ product: LIBC6, status: 'not_affected' });
    expect(bare.impact_statement).toBe(NO_IMPACT_STATEMENT);
    expect(bare).not.toHaveProperty('justification');
    // An impact statement alone satisfies the spec: no filler then.
    expect(only({ product: LIBC6, status: 'not_affected', impactStatement: 'Not reachable.' })).toMatchObject({ impact_statement: 'Not reachable.' });
  });

  it('writes the five OpenVEX justifications as they are, with the impact statement alongside', () => {
    for (const justification of ALL_JUSTIFICATIONS.filter((j) => j !== 'fix_not_planned')) {
      const s = only({ product: LIBC6, status: 'not_affected', justification, impactStatement: 'Because.' });
      expect(s.justification).toBe(justification);
      expect(s.impact_statement).toBe('Because.');
    }
  });

  it('carries fix_not_planned, no OpenVEX justification, as impact statement text', () => {
    const alone = only({ product: LIBC6, status: 'not_affected', justification: 'fix_not_planned' });
    expect(alone).not.toHaveProperty('justification');
    expect(alone.impact_statement).toBe(FIX_NOT_PLANNED_IMPACT);
    const withImpact = only({ product: LIBC6, status: 'not_affected', justification: 'fix_not_planned', impactStatement: 'Only used offline.' });
    expect(withImpact.impact_statement).toBe(`Only used offline.\n${FIX_NOT_PLANNED_IMPACT}`);
  });

  it('keeps fields recorded with a status they do not belong to in status_notes', () => {
    const affected = only({ product: LIBC6, status: 'affected', justification: 'fix_not_planned', impactStatement: 'Remote.', statusNotes: 'Seen in prod.' });
    expect(affected.status_notes).toBe(
      'Seen in prod.\nJustification recorded with this status: fix_not_planned (no fix is planned).\nImpact statement: Remote.',
    );
    expect(affected.action_statement).toBe(NO_ACTION_STATEMENT);
    const fixed = only({ product: LIBC6, status: 'fixed', justification: 'vulnerable_code_not_present', actionStatement: 'Update to 2.37.' });
    expect(fixed.status_notes).toBe('Justification recorded with this status: vulnerable_code_not_present.\nAction statement: Update to 2.37.');
    expect(fixed).not.toHaveProperty('justification');
    expect(fixed).not.toHaveProperty('action_statement');
    const notAffected = only({ product: LIBC6, status: 'not_affected', justification: 'component_not_present', actionStatement: 'None needed.' });
    expect(notAffected.status_notes).toBe('Action statement: None needed.');
  });

  it('writes a valid document for every status and justification combination', () => {
    const statements = ALL_STATUSES.flatMap((status) =>
      [undefined, ...ALL_JUSTIFICATIONS].map((justification, i) =>
        statement({ vulnerabilityId: `CVE-2024-${1000 + i}`, product: LIBC6, status, ...(justification ? { justification } : {}) }),
      ),
    );
    const doc = writeOpenVex(inputOf(statements));
    expectValid(doc);
    expect(doc.statements).toHaveLength(statements.length);
  });

  it('writes the vulnerability with its aliases, description and IRI', () => {
    const s = writeOpenVex(INPUT).statements.find((x) => x.vulnerability.name === 'CVE-2023-4911' && x.status === 'not_affected')!;
    expect(s.vulnerability).toEqual({
      '@id': 'https://nvd.nist.gov/vuln/detail/CVE-2023-4911',
      name: 'CVE-2023-4911',
      description: 'Buffer overflow in the dynamic loader (GLIBC_TUNABLES).',
      aliases: ['DSA-5514-1'],
    });
    expect(Object.keys(s)).toEqual(['vulnerability', 'timestamp', 'products', 'status', 'justification', 'impact_statement']);
  });

  it('groups packages with identical statements into one product, and only those', () => {
    const doc = writeOpenVex(INPUT);
    const looney = doc.statements.filter((s) => s.vulnerability.name === 'CVE-2023-4911');
    expect(looney.map((s) => [s.status, subcomponentIds(s)])).toEqual([
      ['affected', ['pkg:generic/custom-tool@1.2.3']],
      ['not_affected', [LIBC_BIN.purl, LIBC6.purl]],
    ]);
    // Any difference keeps statements apart: justification, texts, or the time the status was set.
    const base = { product: LIBC6, status: 'not_affected' as const, justification: 'component_not_present' as const };
    const variants = [
      statement(base),
      statement({ ...base, product: LIBC_BIN }),
      statement({ ...base, product: OPENSSL, justification: 'vulnerable_code_not_present' }),
      statement({ ...base, product: LODASH, impactStatement: 'Different.' }),
      statement({ ...base, product: NO_PURL, timestamp: T2 }),
      statement({ ...base, product: LIBC6, statusNotes: 'A note.' }),
    ];
    const grouped = writeOpenVex(inputOf(variants));
    expectValid(grouped);
    expect(grouped.statements).toHaveLength(5);
    expect(grouped.statements.map(subcomponentIds)).toEqual(
      expect.arrayContaining([[LIBC_BIN.purl, LIBC6.purl], [OPENSSL.purl], [LIBC6.purl], [LODASH.purl], ['pkg:generic/custom-tool@1.2.3']]),
    );
    // The same package twice in one statement is listed once.
    expect(subcomponentIds(writeOpenVex(inputOf([statement(base), statement(base)])).statements[0]!)).toEqual([LIBC6.purl]);
  });

  it('names packages without a usable purl pkg:generic/<name>@<version>', () => {
    expect(subcomponentIds(only({ product: NO_PURL, status: 'fixed' }))).toEqual(['pkg:generic/custom-tool@1.2.3']);
    expect(subcomponentIds(only({ product: { ...NO_PURL, version: '' }, status: 'fixed' }))).toEqual(['pkg:generic/custom-tool']);
    expect(subcomponentIds(only({ product: { ...NO_PURL, purl: '   ' }, status: 'fixed' }))).toEqual(['pkg:generic/custom-tool@1.2.3']);
    expect(subcomponentIds(only({ product: { ...NO_PURL, purl: 'not a purl' }, status: 'fixed' }))).toEqual(['pkg:generic/custom-tool@1.2.3']);
    // A stored purl is kept as stored, whatever the name says.
    expect(subcomponentIds(only({ product: { ...LIBC6, name: '' }, status: 'fixed' }))).toEqual([LIBC6.purl]);
  });

  it('uses the caller’s document id when it is an IRI, and a stable urn:uuid otherwise', () => {
    const idOf = (documentId: string) => writeOpenVex({ ...INPUT, documentId })['@id'];
    expect(idOf('urn:uuid:0F8E2F4C-9D1A-4B7E-8C3A-2D5E6F7A8B9C')).toBe('urn:uuid:0f8e2f4c-9d1a-4b7e-8c3a-2d5e6f7a8b9c');
    expect(idOf('0f8e2f4c-9d1a-4b7e-8c3a-2d5e6f7a8b9c')).toBe('urn:uuid:0f8e2f4c-9d1a-4b7e-8c3a-2d5e6f7a8b9c');
    expect(idOf('https://vigil.example.com/vex/42')).toBe('https://vigil.example.com/vex/42');
    const derived = idOf('export 42');
    expect(derived).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(idOf('export 42')).toBe(derived);
    expect(idOf('export 43')).not.toBe(derived);
  });

  it('is deterministic, whatever order the statements arrive in', () => {
    const first = writeOpenVex(INPUT);
    expect(writeOpenVex(INPUT)).toEqual(first);
    expect(JSON.stringify(writeOpenVex(INPUT))).toBe(JSON.stringify(first));
    expect(JSON.stringify(writeOpenVex(SHUFFLED))).toBe(JSON.stringify(first));
    // Aliases in any order, duplicated or blank, come out the same.
    const aliases = (list: string[]) => writeOpenVex(inputOf([statement({ product: LIBC6, status: 'fixed', aliases: list })])).statements[0]!.vulnerability;
    expect(aliases(['B', 'A', ' ', 'B'])).toEqual(aliases(['A', 'B']));
    // Statements sort by vulnerability, then time.
    expect(first.statements.map((s) => s.vulnerability.name)).toEqual(['CVE-2023-0464', 'CVE-2023-4911', 'CVE-2023-4911', 'CVE-2023-5678', 'GHSA-35jh-r3h4-6jhm', 'PYSEC-2023-74']);
  });

  it('does not change its input', () => {
    const copy = structuredClone(INPUT);
    writeOpenVex(INPUT);
    expect(INPUT).toEqual(copy);
  });

  it('escapes odd characters in names and texts', () => {
    const doc = writeOpenVex(ODD);
    expectValid(doc, ODD.imageDigest);
    expect(doc.author).toBe(ODD.author);
    expect(doc['@id']).toMatch(/^urn:uuid:/);
    const image = PackageURL.fromString(doc.statements[0]!.products[0]!['@id']);
    expect(image).toMatchObject({ type: 'oci', name: 'app "x"', qualifiers: { repository_url: 'localhost:5000/My Team/App "x"' } });
    const affected = doc.statements.find((s) => s.status === 'affected')!;
    const [pkg] = subcomponentIds(affected);
    expect(pkg).not.toMatch(/[\s"<>\\]/);
    expect(PackageURL.fromString(pkg!)).toMatchObject({ type: 'generic', name: ODD_NAME, version: ODD_VERSION });
    expect(affected.vulnerability).toEqual({ name: 'VIGIL-"odd"\\1', description: 'line 1\nline 2 "quoted" \u0000 \u2028 end', aliases: ['ALIAS <1>'] });
    expect(affected.action_statement).toBe('Run `rm -rf "/opt/x"` \\ then {restart}');
    const notAffected = doc.statements.find((s) => s.status === 'not_affected')!;
    expect(subcomponentIds(notAffected)).toEqual(['pkg:generic/fallback%20name']);
    expect(notAffected.impact_statement).toBe('ü ✓ \u0007 bell');
    // Serialized and parsed back, nothing changes.
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it('refuses input no valid document can be made of', () => {
    expect(() => writeOpenVex(inputOf([]))).toThrow(RangeError);
    expect(() => writeOpenVex(inputOf([statement({ vulnerabilityId: ' ', product: LIBC6, status: 'fixed' })]))).toThrow(/vulnerability id/);
    expect(() => writeOpenVex(inputOf([statement({ product: { purl: '', name: ' ', version: '1', type: 'npm' }, status: 'fixed' })]))).toThrow(/neither purl nor name/);
    expect(() => writeOpenVex(inputOf([statement({ product: LIBC6, status: 'bogus' as never })]))).toThrow(/status/);
    expect(() => writeOpenVex(inputOf([statement({ product: LIBC6, status: 'not_affected', justification: 'bogus' as never })]))).toThrow(/justification/);
    expect(() => writeOpenVex({ ...INPUT, author: '  ' })).toThrow(/author/);
    expect(() => writeOpenVex({ ...INPUT, timestamp: '2024-03-02 08:30' })).toThrow(/RFC 3339/);
    expect(() => writeOpenVex(inputOf([statement({ product: LIBC6, status: 'fixed', timestamp: '2024-02-30T25:00:00Z' })]))).toThrow(/timestamp/);
    expect(() => writeOpenVex({ ...INPUT, imageDigest: 'debian:12' + ' ' })).toThrow(/digest/);
  });

  it('takes statement times from the input, the document time from the caller', () => {
    const doc = writeOpenVex(INPUT);
    expect(doc.timestamp).toBe(T0);
    expect(new Set(doc.statements.map((s) => s.timestamp))).toEqual(new Set([T1, T2]));
  });
});
