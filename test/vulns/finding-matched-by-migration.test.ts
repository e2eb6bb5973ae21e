/**
 * Migration 020 adds image_vulnerabilities.matched_by. Findings stored before it were matched without the binaries
 * rule: an OS package's finding whose advisory used another name than the package's came through its source
 * package; everything else (language packages included, whose matched name is normalised) matched by package.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import * as m020 from '../../src/db/migrations/020_finding_matched_by.js';
import { createTestDb } from '../support/db.js';
import { insertImageRow } from '../support/image-rows.js';

let db: Db;
let close: () => Promise<void>;
const NOW = '2026-11-26T00:00:00Z';
const DIGEST = `sha256:${'a'.repeat(64)}`;

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  await insertImageRow(db, 'acme', DIGEST, 'analyzed');
  await m020.down(db);
  const finding = (key: string, type: string, name: string, matchedName: string) => ({
    account_name: 'acme',
    image_digest: DIGEST,
    finding_key: key.padEnd(64, '0'),
    vuln_id: 'CVE-2099-1',
    feed: 'osv',
    feed_group: 'x',
    package_type: type,
    package_name: name,
    package_version: '1',
    matched_name: matchedName,
    fix_state: 'not-fixed',
    fixed_in: '[]',
    detected_at: NOW,
    last_updated: NOW,
  });
  await db('image_vulnerabilities').insert([
    finding('a', 'dpkg', 'libssl3', 'openssl'),
    finding('b', 'dpkg', 'openssl', 'openssl'),
    finding('c', 'apk', 'ssl_client', 'busybox'),
    finding('d', 'python', 'PyYAML', 'pyyaml'),
    finding('e', 'java', 'log4j-core', 'org.apache.logging.log4j:log4j-core'),
  ]);
  await m020.up(db);
});
afterAll(async () => {
  await close?.();
});

describe('migration 020_finding_matched_by', () => {
  it('labels stored OS findings matched under another name as source-package, the rest as package', async () => {
    const rows = await db('image_vulnerabilities').orderBy('finding_key').select('package_name', 'matched_by');
    expect(rows.map((r: { package_name: string; matched_by: string }) => `${r.package_name} ${r.matched_by}`)).toEqual([
      'libssl3 source-package',
      'openssl package',
      'ssl_client source-package',
      'PyYAML package',
      'log4j-core package',
    ]);
  });
});
