/**
 * feed-rows.ts serialises each affected entry once and splices the entries into the record's JSON. The stored
 * form and the content digest are taken over that JSON, so it must be JSON.stringify's output byte for byte, or
 * every record would look changed to the next sync.
 */
import { describe, expect, it } from 'vitest';
import { recordDigest, recordJson, serialiseRecord } from '../../../src/vulns/feed-rows.js';
import { encodeRecordWithDigest } from '../../../src/vulns/records.js';
import { parseOsvRecord } from '../../../src/vulns/osv/record.js';

const base = {
  schema_version: '1.6.0',
  id: 'GHSA-0000-0000-0001',
  modified: '2026-03-01T00:00:00Z',
  published: '2026-01-01T00:00:00Z',
  aliases: ['CVE-2026-0001'],
  summary: 'a "quoted" summary with \u2028 and \u0000',
  affected: [
    { package: { ecosystem: 'PyPI', name: 'Requests' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0' }] }], versions: ['1.0', '1.1'] },
    { package: { ecosystem: 'Debian:12', name: 'openssl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }], ecosystem_specific: { urgency: 'high' } },
  ],
  references: [{ type: 'WEB', url: 'https://example.com/advisory' }],
  database_specific: { note: 'x' },
};

const parsed = (raw: unknown) => parseOsvRecord(raw);
const entries = (r: ReturnType<typeof parsed>) => r.affected.map((a) => JSON.stringify(a));

describe('recordJson', () => {
  it('gives JSON.stringify of the record, byte for byte', () => {
    const r = parsed(base);
    expect(recordJson(r, entries(r))).toBe(JSON.stringify(r));
  });

  it('packs that JSON as UTF-8 after the plain format byte, and digests it as the stored record is digested', () => {
    for (const raw of [base, { ...base, id: 'GHSA-\u00e9\u4e2d-0001', summary: 'caf\u00e9 \ud83d\ude00' }, { ...base, affected: [] }]) {
      const r = parsed(raw);
      const serialised = serialiseRecord(r);
      expect(serialised.plain[0]).toBe(0);
      expect(serialised.plain.subarray(1).toString('utf8')).toBe(JSON.stringify(r));
      expect(recordDigest(serialised)).toBe(encodeRecordWithDigest(r).digest);
    }
  });

  it('does so for a record without affected entries, and for a withdrawn one', () => {
    for (const raw of [{ ...base, affected: [] }, { ...base, withdrawn: '2026-02-01T00:00:00Z' }]) {
      const r = parsed(raw);
      expect(recordJson(r, entries(r))).toBe(JSON.stringify(r));
    }
  });

  it('serialises the record whole when a member of its own holds an empty `affected` too', () => {
    for (const r of [parsed({ ...base, database_specific: { affected: [] } }), parsed({ ...base, affected: [], database_specific: { nested: { affected: [] } } })]) {
      expect(recordJson(r, entries(r))).toBe(JSON.stringify(r));
      expect(serialiseRecord(r).plain.subarray(1).toString('utf8')).toBe(JSON.stringify(r));
    }
  });

  it('is not misled by the marker\'s text inside a string', () => {
    const r = parsed({ ...base, summary: '"affected":[] is in the summary' });
    expect(recordJson(r, entries(r))).toBe(JSON.stringify(r));
  });
});
