/**
 * Matching against vulnerability data held in memory (no database, no server): which entries a package is
 * matched with, which version is compared, how exclusions and fix states come out, and how matching asks its
 * provider.
 */
import { describe, expect, it } from 'vitest';
import type { DistroInfo } from '../../../../src/ecosystems/model.js';
import { matchPackage, matchPackages } from '../../../../src/vulns/match-package.js';
import { MemoryVulnerabilityProvider } from './memory-provider.js';

type Events = Record<string, string>[];
function advisory(id: string, ecosystem: string, name: string, events: Events, extra: Record<string, unknown> = {}) {
  return { id, modified: '2026-01-01T00:00:00Z', affected: [{ package: { ecosystem, name }, ranges: [{ type: 'ECOSYSTEM', events }] }], ...extra };
}

const DEBIAN_12: DistroInfo = { name: 'debian', version: '12.4', like: [] };
const UBUNTU_LIKE_DEBIAN: DistroInfo = { name: 'pureos', version: '12', like: ['debian'] };

function provider() {
  return new MemoryVulnerabilityProvider().add('osv', [
    advisory('DSA-1', 'Debian:12', 'openssl', [{ introduced: '0' }, { fixed: '3.0.11-1~deb12u2' }]),
    advisory('DSA-2', 'Debian:11', 'openssl', [{ introduced: '0' }, { fixed: '1.1.1w-0+deb11u1' }]),
    advisory('DEBIAN-CVE-3', 'Debian:12', 'glibc', [{ introduced: '0' }]),
    {
      ...advisory('DEBIAN-CVE-4', 'Debian:12', 'tiff', [{ introduced: '0' }]),
      affected: [{ package: { ecosystem: 'Debian:12', name: 'tiff' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }], ecosystem_specific: { fix_state: 'wont-fix' } }],
    },
    // binNMU: the binary version differs from the source version the advisory speaks of.
    advisory('DSA-5', 'Debian:12', 'zlib', [{ introduced: '0' }, { fixed: '1:1.2.13.dfsg-1' }]),
    advisory('PYSEC-6', 'PyPI', 'PyYAML', [{ introduced: '0' }, { fixed: '5.4' }]),
    advisory('PYSEC-7', 'PyPI', 'urllib3', [{ introduced: '0' }, { fixed: '1.26.5' }], { withdrawn: '2026-02-01T00:00:00Z' }),
    advisory('GHSA-8', 'npm', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }]),
  ]);
}

const ids = (m: { vulnId: string }[]) => m.map((x) => x.vulnId);

describe('matching with an in-memory provider', () => {
  it('matches a Debian binary package through its source package, in its release only, with the fix', async () => {
    const vulns = provider();
    expect(await matchPackage(vulns, { type: 'dpkg', name: 'libssl3', version: '3.0.9-1', origin: 'openssl' }, DEBIAN_12)).toEqual([
      { vulnId: 'DSA-1', feed: 'osv', group: 'debian:12', matchedName: 'openssl', matchedBy: 'source-package', fixState: 'fixed', fixedIn: ['3.0.11-1~deb12u2'] },
    ]);
    expect(await matchPackage(vulns, { type: 'dpkg', name: 'libssl3', version: '3.0.11-1~deb12u2', origin: 'openssl' }, DEBIAN_12)).toEqual([]);
    // A derivative of Debian is matched through ID_LIKE.
    expect(ids(await matchPackage(vulns, { type: 'dpkg', name: 'libssl3', version: '3.0.9-1', origin: 'openssl' }, UBUNTU_LIKE_DEBIAN))).toEqual(['DSA-1']);
  });

  it('compares the source version when the advisory is filed under the source package', async () => {
    const vulns = provider();
    const binNmu = { type: 'dpkg', name: 'zlib1g', version: '1:1.2.13.dfsg-1+b1', origin: 'zlib' };
    expect(await matchPackage(vulns, { ...binNmu, sourceVersion: '1:1.2.13.dfsg-1' }, DEBIAN_12)).toEqual([]);
    expect(ids(await matchPackage(vulns, { ...binNmu, version: '1:1.2.11.dfsg-2+b1', sourceVersion: '1:1.2.11.dfsg-2' }, DEBIAN_12))).toEqual(['DSA-5']);
  });

  it('reports unfixed and will-not-fix advisories as such', async () => {
    const vulns = provider();
    expect(await matchPackage(vulns, { type: 'dpkg', name: 'libc6', version: '2.36-9', origin: 'glibc' }, DEBIAN_12)).toEqual([
      expect.objectContaining({ vulnId: 'DEBIAN-CVE-3', fixState: 'not-fixed', fixedIn: [] }),
    ]);
    expect(await matchPackage(vulns, { type: 'dpkg', name: 'libtiff6', version: '4.5.0-6', origin: 'tiff' }, DEBIAN_12)).toEqual([
      expect.objectContaining({ vulnId: 'DEBIAN-CVE-4', fixState: 'wont-fix' }),
    ]);
  });

  it('matches language packages by normalised name in their own ecosystem only', async () => {
    const vulns = provider();
    expect(ids(await matchPackage(vulns, { type: 'python', name: 'pyyaml', version: '5.3.1' }, DEBIAN_12))).toEqual(['PYSEC-6']);
    expect(await matchPackage(vulns, { type: 'python', name: 'PyYAML', version: '5.4' }, undefined)).toEqual([]);
    expect(await matchPackage(vulns, { type: 'npm', name: 'pyyaml', version: '5.3.1' }, undefined)).toEqual([]);
    expect(ids(await matchPackage(vulns, { type: 'npm', name: 'lodash', version: '4.17.20' }, undefined))).toEqual(['GHSA-8']);
    // Withdrawn advisories never match.
    expect(await matchPackage(vulns, { type: 'python', name: 'urllib3', version: '1.26.0' }, undefined)).toEqual([]);
  });

  it('leaves out disabled feeds and groups', async () => {
    const vulns = provider();
    const libssl = { type: 'dpkg', name: 'libssl3', version: '3.0.9-1', origin: 'openssl' };
    vulns.disableGroup('osv', 'debian:12');
    expect(await matchPackage(vulns, libssl, DEBIAN_12)).toEqual([]);
    expect(ids(await matchPackage(vulns, { type: 'npm', name: 'lodash', version: '4.17.20' }, undefined))).toEqual(['GHSA-8']);
    vulns.disabledFeeds.add('osv');
    expect(await matchPackage(vulns, { type: 'npm', name: 'lodash', version: '4.17.20' }, undefined)).toEqual([]);
    // Exclusions given by the caller win over the provider's.
    expect(ids((await matchPackages(vulns, [libssl], DEBIAN_12, { feeds: new Set(), groups: new Set() }))[0]!)).toEqual(['DSA-1']);
  });

  it('makes one search call per run: one search per (ecosystem, release), each name once', async () => {
    const vulns = provider();
    const packages = [
      { type: 'dpkg', name: 'libssl3', version: '3.0.9-1', origin: 'openssl' },
      { type: 'dpkg', name: 'openssl', version: '3.0.9-1', origin: 'openssl' },
      { type: 'dpkg', name: 'libc6', version: '2.36-9', origin: 'glibc' },
      { type: 'python', name: 'PyYAML', version: '5.3.1' },
      { type: 'python', name: 'requests', version: '2.31.0' },
      { type: 'npm', name: 'lodash', version: '4.17.20' },
      // Owned by an OS package: matched through its owner, not looked up in PyPI.
      { type: 'python', name: 'urllib3', version: '1.24.2', owner: { type: 'rpm', name: 'python3-urllib3', version: '1.24.2-5.el8' } },
      // No feed covers these.
      { type: 'java', name: 'log4j-core', version: '2.14.1' },
      { type: 'binary', name: 'busybox', version: '1.36.1' },
    ];
    const matches = await matchPackages(vulns, packages, DEBIAN_12);
    expect(matches.map(ids)).toEqual([['DSA-1'], ['DSA-1'], ['DEBIAN-CVE-3'], ['PYSEC-6'], [], ['GHSA-8'], [], [], []]);
    expect(vulns.calls).toHaveLength(1);
    const searches = vulns.calls[0]!.map((s) => ({ ...s, names: [...s.names].sort() }));
    expect(searches).toEqual([
      { ecosystem: 'debian', release: '12', names: ['glibc', 'libc6', 'libssl3', 'openssl'] },
      { ecosystem: 'pypi', release: undefined, names: ['pyyaml', 'requests'] },
      { ecosystem: 'npm', release: undefined, names: ['lodash'] },
    ]);
  });

  it('reports an advisory once per package when it is filed under both the package and its source', async () => {
    const vulns = new MemoryVulnerabilityProvider().add('osv', [
      {
        id: 'DSA-9',
        modified: '2026-01-01T00:00:00Z',
        affected: [
          { package: { ecosystem: 'Debian:12', name: 'openssl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '3.0.11-1' }] }] },
          { package: { ecosystem: 'Debian:12', name: 'libssl3' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '3.0.11-1' }] }] },
        ],
      },
    ]);
    expect(await matchPackage(vulns, { type: 'dpkg', name: 'libssl3', version: '3.0.9-1', origin: 'openssl' }, DEBIAN_12)).toEqual([
      expect.objectContaining({ vulnId: 'DSA-9', matchedName: 'libssl3' }),
    ]);
  });
});
