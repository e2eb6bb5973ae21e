import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import type { DistroInfo } from '../../src/ecosystems/model.js';
import { syncOsvSource } from '../../src/vulns/feed-sync.js';
import type { SuppressedCandidate } from '../../src/vulns/match-explain.js';
import { matchPackage, matchPackages } from '../../src/vulns/match-package.js';
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
const UBUNTU_2204: DistroInfo = { name: 'ubuntu', version: '22.04', like: ['debian'] };

/** An entry shaped like Ubuntu's USN OSV files: filed under the source package, listing the binaries it fixes. */
function usn(id: string, source: string, fixed: string, binaries: (string | Record<string, unknown>)[]) {
  return {
    id,
    modified: '2026-01-01T00:00:00Z',
    affected: [
      {
        package: { ecosystem: 'Ubuntu:22.04:LTS', name: source, purl: `pkg:deb/ubuntu/${source}@${fixed}?arch=source&distro=jammy` },
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed }] }],
        ecosystem_specific: { binaries: binaries.map((b) => (typeof b === 'string' ? { binary_name: b, binary_version: fixed } : b)), availability: 'No subscription required' },
      },
    ],
  };
}

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
    usn('USN-0012-1', 'python-django', '3:3.2.12-2ubuntu1.1', ['python3-django']),
    // An entry whose binaries list holds nothing Vigil can read is source-level data.
    usn('USN-0013-1', 'curl', '7.81.0-1ubuntu1.15', [{ unknown: 1 }]),
    advisory('UBUNTU-CVE-0014', 'Ubuntu:22.04:LTS', 'python-django', [{ introduced: '0' }]),
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
    expect(libssl).toEqual([
      { vulnId: 'DSA-0001', feed: 'osv', group: 'debian:12', matchedName: 'openssl', matchedBy: 'source-package', fixState: 'fixed', fixedIn: ['3.0.11-1~deb12u2'] },
    ]);
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

describe('binary packages, source packages and suppressed candidates (issue 16, class 3)', () => {
  const django = { type: 'dpkg', name: 'python3-django', version: '3:3.2.12-2ubuntu1', origin: 'python-django' };
  const djangoDoc = { type: 'dpkg', name: 'python-django-doc', version: '3:3.2.12-2ubuntu1', origin: 'python-django' };

  it('matches a binary the entry lists as matched by package, and not a binary of the same source it leaves out', async () => {
    expect(await matchPackage(knexVulnerabilityProvider(db), django, UBUNTU_2204)).toEqual([
      expect.objectContaining({ vulnId: 'UBUNTU-CVE-0014', matchedName: 'python-django', matchedBy: 'source-package' }),
      expect.objectContaining({ vulnId: 'USN-0012-1', matchedName: 'python-django', matchedBy: 'package', fixedIn: ['3:3.2.12-2ubuntu1.1'] }),
    ]);
    expect(ids(await matchPackage(knexVulnerabilityProvider(db), djangoDoc, UBUNTU_2204))).toEqual(['UBUNTU-CVE-0014']);
  });

  it('hands the dropped candidate, with its reason, to a caller that asks', async () => {
    const suppressed: SuppressedCandidate[][] = [];
    const matches = await matchPackages(knexVulnerabilityProvider(db), [django, djangoDoc], UBUNTU_2204, undefined, suppressed);
    expect(matches.map(ids)).toEqual([['UBUNTU-CVE-0014', 'USN-0012-1'], ['UBUNTU-CVE-0014']]);
    expect(suppressed).toEqual([
      [],
      [
        {
          vulnId: 'USN-0012-1',
          feed: 'osv',
          group: 'ubuntu:22.04',
          matchedName: 'python-django',
          reason: 'binary-not-affected',
          detail: 'lists 1 binary (python3-django), not python-django-doc',
        },
      ],
    ]);
    // A version the entry does not cover is no candidate at all.
    const fixed = await matchPackages(knexVulnerabilityProvider(db), [{ ...djangoDoc, version: '3:3.2.12-2ubuntu1.1' }], UBUNTU_2204, undefined, suppressed);
    expect(ids(fixed[0]!)).toEqual(['UBUNTU-CVE-0014']);
    expect(suppressed).toEqual([[]]);
  });

  it('treats a binaries list of an unknown shape as source-level data', async () => {
    const curl = await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'libcurl4', version: '7.81.0-1ubuntu1.14', origin: 'curl' }, UBUNTU_2204);
    expect(curl).toEqual([expect.objectContaining({ vulnId: 'USN-0013-1', matchedBy: 'source-package' })]);
  });

  it('labels an Alpine subpackage matched through its origin as source-package, the origin package itself as package', async () => {
    const [busybox, sslClient] = await matchPackages(
      knexVulnerabilityProvider(db),
      [
        { type: 'apk', name: 'busybox', version: '1.36.1-r1', origin: 'busybox' },
        { type: 'apk', name: 'ssl_client', version: '1.36.1-r1', origin: 'busybox' },
      ],
      ALPINE_318,
    );
    expect(busybox).toEqual([expect.objectContaining({ vulnId: 'ALPINE-0004', matchedBy: 'package' })]);
    expect(sslClient).toEqual([expect.objectContaining({ vulnId: 'ALPINE-0004', matchedName: 'busybox', matchedBy: 'source-package' })]);
  });

  it('labels language packages matched by their own name as package', async () => {
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'python', name: 'Requests', version: '2.28.1' }, undefined)).toEqual([expect.objectContaining({ matchedBy: 'package' })]);
  });
});
