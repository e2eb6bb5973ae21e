import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import type { DistroInfo } from '../../src/images/model.js';
import { syncOsvSource } from '../../src/vulns/feed-sync.js';
import { matchPackage } from '../../src/vulns/match-package.js';
import { knexVulnerabilityProvider } from '../../src/vulns/vulnerability-repository.js';
import { createTestDb } from '../support/db.js';

let db: Db;
let close: () => Promise<void>;
let dir: string;

type Events = Record<string, string>[];
function advisory(id: string, ecosystem: string, name: string, events: Events, extra: Record<string, unknown> = {}) {
  return { id, modified: '2026-01-01T00:00:00Z', affected: [{ package: { ecosystem, name }, ranges: [{ type: 'ECOSYSTEM', events }] }], ...extra };
}

const DEBIAN_12: DistroInfo = { name: 'debian', version: '12', like: [] };
const ALPINE_318: DistroInfo = { name: 'alpine', version: '3.18.4', like: [] };

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  dir = mkdtempSync(join(tmpdir(), 'vigil-match-'));
  const records = [
    // Debian advisories are filed by source package.
    advisory('DSA-0001', 'Debian:12', 'openssl', [{ introduced: '0' }, { fixed: '3.0.11-1~deb12u2' }]),
    advisory('DSA-0002', 'Debian:11', 'openssl', [{ introduced: '0' }, { fixed: '1.1.1w-0+deb11u1' }]),
    advisory('DEBIAN-CVE-0003', 'Debian:12', 'glibc', [{ introduced: '0' }]), // no fix yet
    advisory('ALPINE-0004', 'Alpine:v3.18', 'busybox', [{ introduced: '0' }, { fixed: '1.36.1-r2' }]),
    // Two windows in one events list.
    advisory('PYSEC-0005', 'PyPI', 'Requests', [{ introduced: '2.0.0' }, { fixed: '2.20.0' }, { introduced: '2.28.0' }, { fixed: '2.31.0' }]),
    advisory('PYSEC-0006', 'PyPI', 'urllib3', [{ introduced: '0' }, { fixed: '1.26.5' }], { withdrawn: '2026-02-01T00:00:00Z' }),
    advisory('GHSA-0007', 'npm', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }]),
    advisory('GHSA-0008', 'Maven', 'org.apache.logging.log4j:log4j-core', [{ introduced: '2.0-beta9' }, { fixed: '2.15.0' }]),
    advisory('GO-0009', 'Go', 'golang.org/x/net', [{ introduced: '0' }, { fixed: '0.17.0' }]),
    advisory('GHSA-0010', 'RubyGems', 'rack', [{ introduced: '0' }, { last_affected: '2.2.6' }]),
    // A PyPI package that happens to share a distro package's name.
    advisory('PYSEC-0011', 'PyPI', 'openssl', [{ introduced: '0' }]),
  ];
  records.forEach((r, i) => writeFileSync(join(dir, `${i}.json`), JSON.stringify(r)));
  await syncOsvSource(db, 'osv', dir);
});
afterAll(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

const ids = (m: { vulnId: string }[]) => m.map((x) => x.vulnId);

describe('matching packages against the index', () => {
  it('matches a Debian binary package by its source package, in its release only, with the fix', async () => {
    const libssl = await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'libssl3', version: '3.0.9-1', origin: 'openssl' }, DEBIAN_12);
    expect(libssl).toEqual([{ vulnId: 'DSA-0001', feed: 'osv', group: 'debian:12', matchedName: 'openssl', fixState: 'fixed', fixedIn: ['3.0.11-1~deb12u2'] }]);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'libssl3', version: '3.0.11-1~deb12u2', origin: 'openssl' }, DEBIAN_12)).toEqual([]);
    const libc = await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'libc6', version: '2.36-9+deb12u4', origin: 'glibc' }, DEBIAN_12);
    expect(libc).toEqual([expect.objectContaining({ vulnId: 'DEBIAN-CVE-0003', fixState: 'not-fixed', fixedIn: [] })]);
  });

  it('uses dpkg ordering, where ~ sorts before anything', async () => {
    const tilde = await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'openssl', version: '3.0.11-1~deb12u1', origin: 'openssl' }, DEBIAN_12);
    expect(ids(tilde)).toEqual(['DSA-0001']);
  });

  it('matches Alpine packages by major.minor release and apk ordering', async () => {
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), { type: 'apk', name: 'busybox', version: '1.36.1-r1', origin: 'busybox' }, ALPINE_318))).toEqual(['ALPINE-0004']);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'apk', name: 'busybox', version: '1.36.1-r2', origin: 'busybox' }, ALPINE_318)).toEqual([]);
  });

  it('matches language packages by normalised name in their own ecosystem, across range windows', async () => {
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), { type: 'python', name: 'requests', version: '2.28.1' }, DEBIAN_12))).toEqual(['PYSEC-0005']);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'python', name: 'requests', version: '2.25.0' }, DEBIAN_12)).toEqual([]);
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), { type: 'npm', name: 'lodash', version: '4.17.20' }, undefined))).toEqual(['GHSA-0007']);
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), { type: 'java', name: 'log4j-core', origin: 'org.apache.logging.log4j', version: '2.14.1' }, undefined))).toEqual(['GHSA-0008']);
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), { type: 'go', name: 'golang.org/x/net', version: 'v0.0.0-20220722155237-a158d28d115b' }, undefined))).toEqual(['GO-0009']);
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), { type: 'gem', name: 'rack', version: '2.2.6' }, undefined))).toEqual(['GHSA-0010']);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'gem', name: 'rack', version: '2.2.7' }, undefined)).toEqual([]);
  });

  it('never matches withdrawn advisories, other ecosystems, or unknown distros', async () => {
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'python', name: 'urllib3', version: '1.26.0' }, undefined)).toEqual([]);
    // The Debian openssl package is not matched by the PyPI advisory of the same name, and vice versa.
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'openssl', version: '3.0.9-1' }, DEBIAN_12))).toEqual(['DSA-0001']);
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), { type: 'python', name: 'openssl', version: '1.0' }, DEBIAN_12))).toEqual(['PYSEC-0011']);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'openssl', version: '1.0' }, { name: 'plan9', version: '4', like: [] })).toEqual([]);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'java', name: 'log4j-core', version: '2.14.1' }, undefined)).toEqual([]);
  });
});
