import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../../../src/vulns/sources/errors.js';
import { parseKevCatalog, readKevFile } from '../../../../src/vulns/sources/kev.js';

/** An entry shaped like the real catalog's (which also has notes and cwes, ignored here). */
function entry(cveID: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cveID,
    vendorProject: 'Acme',
    product: 'Widget',
    vulnerabilityName: 'Acme Widget Remote Code Execution',
    dateAdded: '2099-01-02',
    shortDescription: 'Widget runs anything.',
    requiredAction: 'Apply updates per vendor instructions.',
    dueDate: '2099-01-23',
    knownRansomwareCampaignUse: 'Known',
    notes: 'https://example.invalid/advisory',
    cwes: ['CWE-94'],
    ...extra,
  };
}

function catalog(vulnerabilities: unknown[]): Record<string, unknown> {
  return {
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion: '2099.01.02',
    dateReleased: '2099-01-02T17:04:19.9796Z',
    count: vulnerabilities.length,
    vulnerabilities,
  };
}

describe('parseKevCatalog', () => {
  it('reads the catalog header and the entries', () => {
    const result = parseKevCatalog(catalog([entry('CVE-2099-0001'), entry('CVE-2099-12345', { knownRansomwareCampaignUse: 'Unknown' })]));
    expect(result.catalogVersion).toBe('2099.01.02');
    expect(result.dateReleased).toBe('2099-01-02T17:04:19.9796Z');
    expect(result.skipped).toBe(0);
    expect(result.errors).toEqual([]);
    expect(result.entries).toEqual([
      {
        cveId: 'CVE-2099-0001',
        vendorProject: 'Acme',
        product: 'Widget',
        vulnerabilityName: 'Acme Widget Remote Code Execution',
        dateAdded: '2099-01-02',
        dueDate: '2099-01-23',
        knownRansomwareCampaignUse: 'Known',
        shortDescription: 'Widget runs anything.',
        requiredAction: 'Apply updates per vendor instructions.',
      },
      expect.objectContaining({ cveId: 'CVE-2099-12345', knownRansomwareCampaignUse: 'Unknown' }),
    ]);
  });

  it('leaves optional fields out when absent or blank, and descriptive ones empty', () => {
    const result = parseKevCatalog({
      vulnerabilities: [{ cveID: ' CVE-2099-0002 ', dateAdded: '2099-02-03', dueDate: '  ', shortDescription: null, product: 7 }],
    });
    expect(result.catalogVersion).toBeUndefined();
    expect(result.dateReleased).toBeUndefined();
    expect(result.entries).toEqual([{ cveId: 'CVE-2099-0002', vendorProject: '', product: '', vulnerabilityName: '', dateAdded: '2099-02-03' }]);
  });

  it('skips and counts entries without a valid cveID or dateAdded', () => {
    const result = parseKevCatalog(
      catalog([
        entry('CVE-2099-0001'),
        entry(undefined),
        entry('CVE-99-1'),
        entry('CVE-2099-123'),
        entry(42),
        'not an object',
        null,
        entry('CVE-2099-0003', { dateAdded: '02/01/2099' }),
        entry('CVE-2099-0004', { dateAdded: undefined }),
        entry('cve-2099-0005'),
      ]),
    );
    expect(result.entries.map((e) => e.cveId)).toEqual(['CVE-2099-0001', 'CVE-2099-0005']);
    expect(result.skipped).toBe(8);
    expect(result.errors.map((e) => e.source)).toEqual([
      'vulnerabilities[1]',
      'vulnerabilities[2]',
      'vulnerabilities[3]',
      'vulnerabilities[4]',
      'vulnerabilities[5]',
      'vulnerabilities[6]',
      'vulnerabilities[7]',
      'vulnerabilities[8]',
    ]);
    expect(result.errors[0]!.message).toMatch(/^cveID: expected a CVE id/);
    expect(result.errors[2]!.message).toContain('"CVE-2099-123"');
    expect(result.errors[4]!.message).toBe('expected an object');
    expect(result.errors[6]!.message).toMatch(/^CVE-2099-0003: dateAdded: expected YYYY-MM-DD, got "02\/01\/2099"/);
  });

  it('keeps the last entry of a repeated CVE id, at its last position', () => {
    const result = parseKevCatalog(
      catalog([entry('CVE-2099-0001', { product: 'old' }), entry('CVE-2099-0002'), entry('CVE-2099-0001', { product: 'new' })]),
    );
    expect(result.entries.map((e) => [e.cveId, e.product])).toEqual([
      ['CVE-2099-0002', 'Widget'],
      ['CVE-2099-0001', 'new'],
    ]);
    expect(result.skipped).toBe(0);
  });

  it('keeps at most 100 skip reasons but counts every skipped entry', () => {
    const result = parseKevCatalog(catalog(Array.from({ length: 150 }, () => entry('nope'))));
    expect(result.skipped).toBe(150);
    expect(result.errors).toHaveLength(100);
  });

  it('cuts long bad values short in the reason', () => {
    const result = parseKevCatalog(catalog([entry('x'.repeat(10_000))]));
    expect(result.errors[0]!.message.length).toBeLessThan(120);
  });

  it.each([
    ['no vulnerabilities key', { catalogVersion: '1' }],
    ['vulnerabilities not an array', { vulnerabilities: { 'CVE-2099-0001': {} } }],
    ['an array at the top', [entry('CVE-2099-0001')]],
    ['null', null],
    ['a string', 'catalog'],
  ])('throws FeedFormatError for %s', (_name, json) => {
    expect(() => parseKevCatalog(json)).toThrow(FeedFormatError);
    try {
      parseKevCatalog(json);
    } catch (err) {
      expect((err as FeedFormatError).format).toBe('kev');
      expect((err as FeedFormatError).message).toMatch(/vulnerabilities/);
    }
  });

  it('accepts an empty catalog', () => {
    expect(parseKevCatalog({ vulnerabilities: [] })).toEqual({ entries: [], skipped: 0, errors: [] });
  });
});

describe('readKevFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vigil-kev-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a catalog file (with or without a byte-order mark)', async () => {
    const path = join(dir, 'kev.json');
    await writeFile(path, `\uFEFF${JSON.stringify(catalog([entry('CVE-2099-0001')]), null, 4)}`);
    const result = await readKevFile(path);
    expect(result.catalogVersion).toBe('2099.01.02');
    expect(result.entries.map((e) => e.cveId)).toEqual(['CVE-2099-0001']);
  });

  it('throws FeedFormatError naming the file for invalid or truncated JSON', async () => {
    const path = join(dir, 'truncated.json');
    const text = JSON.stringify(catalog([entry('CVE-2099-0001')]));
    await writeFile(path, text.slice(0, text.length / 2));
    const err = await readKevFile(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedFormatError);
    expect((err as FeedFormatError).source).toBe(path);
    expect((err as FeedFormatError).message).toContain('invalid JSON');
  });

  it('throws FeedFormatError naming the file for JSON that is not a catalog', async () => {
    const path = join(dir, 'osv.json');
    await writeFile(path, JSON.stringify({ id: 'GHSA-xxxx-xxxx-xxxx', modified: '2099-01-01T00:00:00Z' }));
    const err = await readKevFile(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedFormatError);
    expect((err as FeedFormatError).message).toContain(path);
  });

  it('lets a missing file fail as a file-system error', async () => {
    await expect(readKevFile(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
