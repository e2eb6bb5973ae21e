/**
 * The project's own feed fixtures: OSV records written for the packages of the test images in
 * test/api/vulnerabilities.test.ts (Debian, Alpine, PyPI, npm, RubyGems, Maven), covering fixed, not-fixed,
 * won't-fix, multi-window, source-package, other-release and withdrawn cases, plus a KEV catalog and an EPSS file.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Events = Record<string, string>[];

export interface FixtureRecordOptions {
  aliases?: string[];
  severity?: { type: string; score: string }[];
  databaseSpecific?: Record<string, unknown>;
  ecosystemSpecific?: Record<string, unknown>;
  withdrawn?: string;
  modified?: string;
  summary?: string;
}

export function osvRecord(id: string, ecosystem: string, name: string, events: Events, o: FixtureRecordOptions = {}) {
  return {
    schema_version: '1.6.0',
    id,
    modified: o.modified ?? '2026-10-01T00:00:00Z',
    published: '2026-09-01T00:00:00Z',
    ...(o.withdrawn ? { withdrawn: o.withdrawn } : {}),
    aliases: o.aliases ?? [],
    summary: o.summary ?? `${name}: test advisory ${id}`,
    details: `Details of ${id} for ${name}.`,
    ...(o.severity ? { severity: o.severity } : {}),
    affected: [
      {
        package: { ecosystem, name },
        ranges: [{ type: 'ECOSYSTEM', events }],
        ...(o.ecosystemSpecific ? { ecosystem_specific: o.ecosystemSpecific } : {}),
      },
    ],
    references: [{ type: 'ADVISORY', url: `https://advisories.example/${id}` }],
    ...(o.databaseSpecific ? { database_specific: o.databaseSpecific } : {}),
  };
}

export const CRITICAL_V3 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
export const MEDIUM_V3 = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N';

/** The initial feed: record id -> record. */
export function initialRecords(): Record<string, unknown> {
  const records = [
    // libssl3 (source openssl) 3.0.11-1~deb12u2: fixed in a later point release; a KEV CVE with EPSS.
    osvRecord('DSA-9001-1', 'Debian:12', 'openssl', [{ introduced: '0' }, { fixed: '3.0.13-1~deb12u1' }], {
      aliases: ['CVE-2099-0001'],
      severity: [{ type: 'CVSS_V3', score: CRITICAL_V3 }],
    }),
    // The same package in another release must not match a Debian 12 image.
    osvRecord('DSA-9002-1', 'Debian:11', 'openssl', [{ introduced: '0' }, { fixed: '1.1.1w-0+deb11u9' }]),
    // libc6 (source glibc): no fix yet.
    osvRecord('DEBIAN-CVE-2099-0002', 'Debian:12', 'glibc', [{ introduced: '0' }], { aliases: ['CVE-2099-0002'], databaseSpecific: { severity: 'low' } }),
    // zlib1g (source zlib): the distribution will not fix it.
    osvRecord('DEBIAN-CVE-2099-0003', 'Debian:12', 'zlib', [{ introduced: '0' }], { aliases: ['CVE-2099-0003'], ecosystemSpecific: { fix_state: 'wont-fix' } }),
    // libblkid1 2.38.1-5+b1, source util-linux 2.38.1-5: inside the second of two windows (by source version).
    osvRecord('DSA-9004-1', 'Debian:12', 'util-linux', [{ introduced: '0' }, { fixed: '2.38.1-4' }, { introduced: '2.38.1-5' }, { fixed: '2.38.1-6' }], {
      severity: [{ type: 'CVSS_V3', score: MEDIUM_V3 }],
    }),
    // busybox 1.36.1-r1 on Alpine 3.18.
    osvRecord('ALPINE-CVE-2099-0005', 'Alpine:v3.18', 'busybox', [{ introduced: '0' }, { fixed: '1.36.1-r2' }], { aliases: ['CVE-2099-0005'] }),
    // requests 2.28.1: inside the second window; GitHub-style severity word.
    osvRecord('PYSEC-2099-6', 'PyPI', 'Requests', [{ introduced: '2.0.0' }, { fixed: '2.20.0' }, { introduced: '2.28.0' }, { fixed: '2.31.0' }], {
      aliases: ['CVE-2099-0006', 'GHSA-aaaa-bbbb-cccc'],
      databaseSpecific: { severity: 'MODERATE' },
    }),
    // A withdrawn urllib3 advisory matches nothing.
    osvRecord('PYSEC-2099-7', 'PyPI', 'urllib3', [{ introduced: '0' }, { fixed: '9.9.9' }], { withdrawn: '2026-10-02T00:00:00Z' }),
    // lodash 4.17.20 (npm).
    osvRecord('GHSA-lodash-0008', 'npm', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }], { databaseSpecific: { severity: 'HIGH' } }),
    // rack 2.2.6 (gem): only a last_affected bound, so no fix is known.
    osvRecord('GHSA-rack-0009', 'RubyGems', 'rack', [{ introduced: '0' }, { last_affected: '2.2.6' }]),
    // log4j-core 2.14.1 (Maven, group:artifact).
    osvRecord('GHSA-log4j-0010', 'Maven', 'org.apache.logging.log4j:log4j-core', [{ introduced: '2.0-beta9' }, { fixed: '2.15.0' }], {
      aliases: ['CVE-2099-0010'],
      severity: [{ type: 'CVSS_V3', score: CRITICAL_V3 }],
    }),
    // A PyPI package named like the Debian openssl source package: never matched against dpkg packages.
    osvRecord('PYSEC-2099-11', 'PyPI', 'openssl', [{ introduced: '0' }]),
  ];
  return Object.fromEntries(records.map((r) => [r.id, r]));
}

export const KEV_CATALOG = {
  title: 'CISA Catalog of Known Exploited Vulnerabilities',
  catalogVersion: '2099.01.01',
  dateReleased: '2099-01-01T00:00:00.000Z',
  count: 2,
  vulnerabilities: [
    { cveID: 'CVE-2099-0001', vendorProject: 'OpenSSL', product: 'OpenSSL', vulnerabilityName: 'Test', dateAdded: '2099-01-01', shortDescription: 'x', requiredAction: 'Patch', dueDate: '2099-01-21', knownRansomwareCampaignUse: 'Unknown' },
    { cveID: 'CVE-2099-0010', vendorProject: 'Apache', product: 'Log4j', vulnerabilityName: 'Test', dateAdded: '2099-01-01', shortDescription: 'x', requiredAction: 'Patch', dueDate: '2099-01-21', knownRansomwareCampaignUse: 'Known' },
  ],
};

export const EPSS_CSV = '#model_version:v2025.03.14,score_date:2099-01-01T00:00:00+0000\ncve,epss,percentile\nCVE-2099-0001,0.97,0.999\nCVE-2099-0006,0.0123,0.456\n';

/** Writes the records as one JSON file each into dir (replacing what was there). */
export function writeRecords(dir: string, records: Record<string, unknown>): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [id, record] of Object.entries(records)) writeFileSync(join(dir, `${id}.json`), JSON.stringify(record));
}
