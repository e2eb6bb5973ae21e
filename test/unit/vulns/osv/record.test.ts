import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../../../src/errors.js';
import { OsvRecordError } from '../../../../src/vulns/osv/errors.js';
import { isWithdrawn, parseOsvRecord } from '../../../../src/vulns/osv/record.js';

// Fixtures written for these tests in the shape of each feed's records; ids and texts are invented.

const GO_RECORD = {
  schema_version: '1.3.1',
  id: 'GO-2099-0101',
  modified: '0001-01-01T00:00:00Z',
  published: '2099-02-03T18:00:00Z',
  aliases: ['CVE-2099-10101', 'GHSA-abcd-efgh-ijkl'],
  summary: 'Request smuggling in example.test/httpkit',
  details: 'A crafted chunk extension makes the parser accept two requests as one.',
  affected: [
    {
      package: { name: 'example.test/httpkit', ecosystem: 'Go' },
      ranges: [
        {
          type: 'SEMVER',
          events: [{ introduced: '0' }, { fixed: '1.4.13' }, { introduced: '1.5.0' }, { fixed: '1.5.10' }, { introduced: '1.6.0' }, { fixed: '1.6.1' }],
        },
      ],
      ecosystem_specific: { imports: [{ path: 'example.test/httpkit/chunked', symbols: ['Reader.Read'] }] },
    },
  ],
  references: [
    { type: 'FIX', url: 'https://example.test/httpkit/pull/77' },
    { type: 'WEB', url: 'https://example.test/httpkit/issues/76' },
  ],
  credits: [{ name: 'a researcher' }],
  database_specific: { url: 'https://pkg.go.dev/vuln/GO-2099-0101', review_status: 'REVIEWED' },
};

const PYSEC_RECORD = {
  id: 'PYSEC-2099-41',
  details: 'The session helper forwards the Proxy-Authorization header to the redirect target.',
  affected: [
    {
      package: { name: 'fetchlib', ecosystem: 'PyPI', purl: 'pkg:pypi/fetchlib' },
      ranges: [
        { type: 'GIT', repo: 'https://example.test/fetchlib', events: [{ introduced: '0' }, { fixed: '0123456789abcdef0123456789abcdef01234567' }] },
        { type: 'ECOSYSTEM', events: [{ introduced: '2.3.0' }, { fixed: '2.31.0' }] },
      ],
      versions: ['2.3.0', '2.4.0', '2.28.1', '2.30.0'],
    },
  ],
  references: [{ type: 'ADVISORY', url: 'https://example.test/advisories/41' }],
  aliases: ['CVE-2099-3268', 'GHSA-zzzz-yyyy-xxxx'],
  modified: '2099-06-01T12:15:00.123456Z',
  published: '2099-05-26T18:15:00Z',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N' }],
};

const DEBIAN_RECORD = {
  id: 'DSA-9901-1',
  summary: 'imagetool - security update',
  details: 'Several out-of-bounds reads were found in the TIFF decoder.',
  aliases: [],
  related: ['CVE-2099-2001', 'CVE-2099-2002'],
  published: '2099-03-01T00:00:00Z',
  modified: '2099-03-02T08:00:00Z',
  affected: [
    {
      package: { ecosystem: 'Debian:12', name: 'imagetool', purl: 'pkg:deb/debian/imagetool?arch=source' },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '8:6.9.11.60+dfsg-1.6+deb12u1' }] }],
      versions: ['8:6.9.11.60+dfsg-1.6'],
      database_specific: { source: 'https://example.test/debian/DSA-9901-1.json' },
    },
  ],
  references: [{ type: 'ADVISORY', url: 'https://www.debian.org/security/2099/dsa-9901' }],
};

const GHSA_RECORD = {
  schema_version: '1.4.0',
  id: 'GHSA-r9p9-mrjm-0000',
  modified: '2099-03-08T16:02:43Z',
  published: '2099-03-08T16:06:50Z',
  aliases: ['CVE-2099-28498', 'GHSA-r9p9-mrjm-0000'],
  summary: 'Missing curve point check in an elliptic-curve library',
  details: 'Public keys are not checked to lie on the curve before ECDH.',
  severity: [
    { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:C/C:H/I:N/A:N' },
    { type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:H/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N' },
  ],
  affected: [
    {
      package: { ecosystem: 'npm', name: 'curvelib' },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '6.5.4' }] }],
      database_specific: { source: 'https://github.com/advisories/GHSA-r9p9-mrjm-0000/GHSA-r9p9-mrjm-0000.json' },
    },
    {
      package: { ecosystem: 'Maven', name: 'org.example:curvelib-java' },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '1.0' }, { last_affected: '1.4' }] }],
    },
  ],
  references: [
    { type: 'ADVISORY', url: 'https://nvd.nist.gov/vuln/detail/CVE-2099-28498' },
    { type: 'PACKAGE', url: 'https://www.npmjs.com/package/curvelib' },
  ],
  database_specific: { cwe_ids: ['CWE-327'], severity: 'MODERATE', github_reviewed: true },
};

const clone = <T>(value: T): T => structuredClone(value);

describe('parseOsvRecord: feed-shaped records', () => {
  it('reads a Go vulndb record (several windows, ecosystem_specific, placeholder modified)', () => {
    const record = parseOsvRecord(GO_RECORD);
    expect(record).toMatchObject({
      id: 'GO-2099-0101',
      schemaVersion: '1.3.1',
      modified: '0001-01-01T00:00:00Z',
      published: '2099-02-03T18:00:00Z',
      aliases: ['CVE-2099-10101', 'GHSA-abcd-efgh-ijkl'],
      related: [],
      severity: [],
      summary: 'Request smuggling in example.test/httpkit',
      databaseSpecific: { url: 'https://pkg.go.dev/vuln/GO-2099-0101', review_status: 'REVIEWED' },
    });
    expect(record.withdrawn).toBeUndefined();
    expect(isWithdrawn(record)).toBe(false);
    const [affected] = record.affected;
    expect(affected!.package).toEqual({ name: 'example.test/httpkit', ecosystem: { ecosystem: 'Go', raw: 'Go' } });
    expect(affected!.ranges[0]!.events).toEqual([
      { kind: 'introduced', version: '0' },
      { kind: 'fixed', version: '1.4.13' },
      { kind: 'introduced', version: '1.5.0' },
      { kind: 'fixed', version: '1.5.10' },
      { kind: 'introduced', version: '1.6.0' },
      { kind: 'fixed', version: '1.6.1' },
    ]);
    expect(affected!.versions).toEqual([]);
    expect(affected!.ecosystemSpecific).toEqual(GO_RECORD.affected[0]!.ecosystem_specific);
    expect(record.references).toEqual(GO_RECORD.references);
    expect(record).not.toHaveProperty('credits');
  });

  it('reads a PyPI advisory-database record (GIT + ECOSYSTEM ranges, versions, CVSS v3)', () => {
    const record = parseOsvRecord(PYSEC_RECORD);
    expect(record.severity).toEqual([{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N' }]);
    expect(record.modified).toBe('2099-06-01T12:15:00.123456Z');
    expect(record.summary).toBeUndefined();
    const [affected] = record.affected;
    expect(affected!.package).toEqual({ name: 'fetchlib', purl: 'pkg:pypi/fetchlib', ecosystem: { ecosystem: 'PyPI', raw: 'PyPI' } });
    expect(affected!.ranges.map((r) => r.type)).toEqual(['GIT', 'ECOSYSTEM']);
    expect(affected!.ranges[0]!.repo).toBe('https://example.test/fetchlib');
    expect(affected!.versions).toContain('2.28.1');
  });

  it('reads a Debian record (release-scoped ecosystem, epoch versions, related CVEs)', () => {
    const record = parseOsvRecord(DEBIAN_RECORD);
    expect(record.aliases).toEqual([]);
    expect(record.related).toEqual(['CVE-2099-2001', 'CVE-2099-2002']);
    const [affected] = record.affected;
    expect(affected!.package!.ecosystem).toEqual({ ecosystem: 'Debian', release: '12', raw: 'Debian:12' });
    expect(affected!.ranges[0]!.events[1]).toEqual({ kind: 'fixed', version: '8:6.9.11.60+dfsg-1.6+deb12u1' });
    expect(affected!.databaseSpecific).toEqual({ source: 'https://example.test/debian/DSA-9901-1.json' });
  });

  it('reads a GitHub advisory (database severity word, CVSS v3 and v4, several packages)', () => {
    const record = parseOsvRecord(GHSA_RECORD);
    expect(record.severityLabel).toBe('MODERATE');
    expect(record.severity.map((s) => s.type)).toEqual(['CVSS_V3', 'CVSS_V4']);
    // The record's own id is not an alias of itself.
    expect(record.aliases).toEqual(['CVE-2099-28498']);
    expect(record.affected.map((a) => a.package?.ecosystem.ecosystem)).toEqual(['npm', 'Maven']);
    expect(record.affected[1]!.ranges[0]!.events[1]).toEqual({ kind: 'last_affected', version: '1.4' });
    expect(record.databaseSpecific).toEqual(GHSA_RECORD.database_specific);
  });

  it('takes per-package severity words and severity lists', () => {
    const record = parseOsvRecord({
      id: 'RUSTSEC-2099-0033',
      modified: '2099-01-04T19:02:00Z',
      affected: [
        {
          package: { ecosystem: 'crates.io', name: 'httpish' },
          severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' }],
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.1.20' }] }],
          ecosystem_specific: { severity: 'HIGH' },
        },
        {
          package: { ecosystem: 'Ubuntu:22.04:LTS', name: 'httpish' },
          severity: [{ type: 'Ubuntu', score: 'medium' }],
          ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '0.1.20-0ubuntu0.22.04.1' }] }],
        },
      ],
    });
    expect(record.affected[0]!.severityLabel).toBe('HIGH');
    expect(record.affected[0]!.severity[0]!.type).toBe('CVSS_V3');
    expect(record.affected[1]!.severity).toEqual([{ type: 'Ubuntu', score: 'medium' }]);
    expect(record.affected[1]!.package!.ecosystem).toMatchObject({ ecosystem: 'Ubuntu', release: '22.04', lts: true });
  });

  it('accepts the minimal record and nulls where the schema allows them', () => {
    const record = parseOsvRecord({ id: 'OSV-2099-1', modified: '2099-01-01T00:00:00+00:00', aliases: null, severity: null, affected: null, references: null });
    expect(record).toEqual({ id: 'OSV-2099-1', modified: '2099-01-01T00:00:00+00:00', aliases: [], related: [], severity: [], affected: [], references: [] });
  });

  it('takes the ids of object-form related entries', () => {
    const record = parseOsvRecord({ id: 'X-1', modified: '2099-01-01T00:00:00Z', related: ['CVE-2099-1', { type: 'SIMILAR_TO', id: 'CVE-2099-2' }, 'CVE-2099-1'] });
    expect(record.related).toEqual(['CVE-2099-1', 'CVE-2099-2']);
  });

  it('keeps an affected entry without a package (GIT-only entries)', () => {
    const record = parseOsvRecord({
      id: 'OSV-2099-2',
      modified: '2099-01-01T00:00:00Z',
      affected: [{ ranges: [{ type: 'GIT', repo: 'https://example.test/r', events: [{ introduced: 'abc' }, { limit: 'def' }] }] }],
    });
    expect(record.affected[0]!.package).toBeUndefined();
    expect(record.affected[0]!.ranges[0]!.events[1]).toEqual({ kind: 'limit', version: 'def' });
  });
});

describe('withdrawn records', () => {
  it('are recognised', () => {
    const record = parseOsvRecord({ ...clone(GO_RECORD), withdrawn: '2099-08-21T16:25:56Z', summary: 'Withdrawn: not a vulnerability' });
    expect(record.withdrawn).toBe('2099-08-21T16:25:56Z');
    expect(isWithdrawn(record)).toBe(true);
  });
});

describe('parseOsvRecord: malformed records', () => {
  function failure(json: unknown): OsvRecordError {
    try {
      parseOsvRecord(json);
    } catch (err) {
      expect(err).toBeInstanceOf(OsvRecordError);
      return err as OsvRecordError;
    }
    throw new Error('expected parseOsvRecord to throw');
  }

  function mutated(base: object, mutate: (r: any) => void): unknown {
    const copy = clone(base);
    mutate(copy);
    return copy;
  }

  it('is an InvalidError carrying the field and record id', () => {
    const err = failure(mutated(PYSEC_RECORD, (r) => { r.affected[0].ranges[1].events = 'introduced 0'; }));
    expect(err).toBeInstanceOf(InvalidError);
    expect(err.status).toBe(400);
    expect(err.name).toBe('OsvRecordError');
    expect(err.field).toBe('affected[0].ranges[1].events');
    expect(err.recordId).toBe('PYSEC-2099-41');
    expect(err.message).toBe('PYSEC-2099-41: affected[0].ranges[1].events: expected an array, got a string');
    expect(err.detail).toEqual({ field: 'affected[0].ranges[1].events', record_id: 'PYSEC-2099-41' });
  });

  it.each<[string, unknown, string, RegExp]>([
    ['not an object', ['GO-1'], '(record)', /expected an object, got an array/],
    ['missing id', mutated(GO_RECORD, (r) => { delete r.id; }), 'id', /is required/],
    ['id not a string', mutated(GO_RECORD, (r) => { r.id = 42; }), 'id', /expected a string, got a number/],
    ['empty id', mutated(GO_RECORD, (r) => { r.id = '  '; }), 'id', /must not be empty/],
    ['missing modified', mutated(GO_RECORD, (r) => { delete r.modified; }), 'modified', /is required/],
    ['modified not a timestamp', mutated(GO_RECORD, (r) => { r.modified = 'yesterday'; }), 'modified', /RFC 3339/],
    ['withdrawn not a timestamp', mutated(GO_RECORD, (r) => { r.withdrawn = '2099-13'; }), 'withdrawn', /RFC 3339/],
    ['aliases not an array', mutated(GO_RECORD, (r) => { r.aliases = 'CVE-2099-1'; }), 'aliases', /expected an array/],
    ['alias not a string', mutated(GO_RECORD, (r) => { r.aliases[1] = 7; }), 'aliases[1]', /expected a string/],
    ['summary not a string', mutated(GO_RECORD, (r) => { r.summary = ['x']; }), 'summary', /expected a string, got an array/],
    ['affected not an array', mutated(GO_RECORD, (r) => { r.affected = {}; }), 'affected', /expected an array/],
    ['affected entry not an object', mutated(GO_RECORD, (r) => { r.affected.push('Go'); }), 'affected[1]', /expected an object/],
    ['package name missing', mutated(GO_RECORD, (r) => { delete r.affected[0].package.name; }), 'affected[0].package.name', /is required/],
    ['package ecosystem not a string', mutated(GO_RECORD, (r) => { r.affected[0].package.ecosystem = 1; }), 'affected[0].package.ecosystem', /expected a string/],
    ['events not an array', mutated(GO_RECORD, (r) => { r.affected[0].ranges[0].events = { introduced: '0' }; }), 'affected[0].ranges[0].events', /expected an array, got an object/],
    ['events missing', mutated(GO_RECORD, (r) => { delete r.affected[0].ranges[0].events; }), 'affected[0].ranges[0].events', /is required/],
    ['no introduced event', mutated(GO_RECORD, (r) => { r.affected[0].ranges[0].events = [{ fixed: '1.0.0' }]; }), 'affected[0].ranges[0].events', /introduced/],
    ['unknown event key', mutated(GO_RECORD, (r) => { r.affected[0].ranges[0].events[1] = { fixd: '1.4.13' }; }), 'affected[0].ranges[0].events[1]', /unknown event key 'fixd'/],
    ['two keys in one event', mutated(GO_RECORD, (r) => { r.affected[0].ranges[0].events[0] = { introduced: '0', fixed: '1.0.0' }; }), 'affected[0].ranges[0].events[0]', /exactly one/],
    ['empty event', mutated(GO_RECORD, (r) => { r.affected[0].ranges[0].events[2] = {}; }), 'affected[0].ranges[0].events[2]', /exactly one/],
    ['event version not a string', mutated(GO_RECORD, (r) => { r.affected[0].ranges[0].events[1] = { fixed: 1.5 }; }), 'affected[0].ranges[0].events[1].fixed', /expected a string, got a number/],
    ['event version empty', mutated(GO_RECORD, (r) => { r.affected[0].ranges[0].events[1] = { fixed: '' }; }), 'affected[0].ranges[0].events[1].fixed', /must not be empty/],
    ['unknown range type', mutated(GO_RECORD, (r) => { r.affected[0].ranges[0].type = 'SEMVER2'; }), 'affected[0].ranges[0].type', /unknown range type 'SEMVER2'/],
    ['range type missing', mutated(GO_RECORD, (r) => { delete r.affected[0].ranges[0].type; }), 'affected[0].ranges[0].type', /is required/],
    ['versions entry not a string', mutated(PYSEC_RECORD, (r) => { r.affected[0].versions[2] = 2.28; }), 'affected[0].versions[2]', /expected a string/],
    ['unknown severity type', mutated(PYSEC_RECORD, (r) => { r.severity[0].type = 'CVSS_V9'; }), 'severity[0].type', /unknown severity type 'CVSS_V9'/],
    ['severity score missing', mutated(PYSEC_RECORD, (r) => { delete r.severity[0].score; }), 'severity[0].score', /is required/],
    ['package severity not an array', mutated(PYSEC_RECORD, (r) => { r.affected[0].severity = 'HIGH'; }), 'affected[0].severity', /expected an array/],
    ['reference url missing', mutated(PYSEC_RECORD, (r) => { delete r.references[0].url; }), 'references[0].url', /is required/],
    ['database_specific not an object', mutated(GHSA_RECORD, (r) => { r.database_specific = 'MODERATE'; }), 'database_specific', /expected an object/],
    ['ecosystem_specific not an object', mutated(GO_RECORD, (r) => { r.affected[0].ecosystem_specific = []; }), 'affected[0].ecosystem_specific', /expected an object, got an array/],
  ])('%s', (_name, json, field, problem) => {
    const err = failure(json);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(problem);
  });
});
