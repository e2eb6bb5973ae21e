/**
 * Images of each distro family matched end to end against OSV records in the ecosystem forms the distributions
 * publish: analyzed from a docker archive (os-release, the package database written by the package manager's own
 * tools), then `GET /v2/images/{digest}/vuln/all`.
 *
 *  - Ubuntu 22.04 (dpkg): `Ubuntu:22.04:LTS` matches; `Ubuntu:20.04:LTS` and the `Ubuntu:Pro:FIPS-updates:22.04:LTS`
 *    build do not.
 *  - RHEL 9 (rpmdb.sqlite written by rpm): `Red Hat:enterprise_linux:9::appstream` and `::baseos` match; RHEL 8, an
 *    EUS stream and a module stream's entry for the non-modular nodejs do not; a module build meets its stream's entry.
 *  - Rocky Linux 9 (the same rpm database): `Rocky Linux:9` matches, `Rocky Linux:8` and the Red Hat records do not.
 *  - SLES 12 SP5 (Berkeley DB `Packages`, as SLE 12 keeps it): `SUSE:Linux Enterprise Server 12 SP5` matches by
 *    source package, `SUSE:Linux Enterprise Server 15 SP5` does not.
 *  - SLES 15 SP5 (rpm's ndb `/usr/lib/sysimage/rpm/Packages.db`, as SLE 15 SP3+ keeps it): the other way round.
 *
 * Needs rpm and rpmbuild (Debian: rpm), gpg (gnupg) and perl with DB_File (perl).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRpmdbSqliteBlobs } from '../../src/ecosystems/rpm/cataloger.js';
import { analyzeArchiveImage } from '../support/analysis.js';
import { raw } from '../support/http.js';
import type { FileSpec } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { buildBerkeleyPackagesFile, buildNdbPackagesFile, buildRpmdbFixture, noarchRpmSpec, type RpmdbFixture } from '../unit/ecosystems/rpm/testdata/rpmdb.js';
import { osvRecord, writeRecords } from '../vulns/fixture-feed.js';
import { missingTools } from '../support/tools.js';

const EL9_SPECS = {
  nodejs: noarchRpmSpec({ name: 'nodejs', epoch: 1, version: '16.20.2', release: '3.el9' }),
  openssl: noarchRpmSpec({ name: 'openssl', epoch: 1, version: '3.0.7', release: '27.el9', subpackage: 'openssl-libs' }),
  // From the postgresql:15 module stream: the release names the module build.
  postgresql: noarchRpmSpec({ name: 'postgresql', version: '15.6', release: '1.module+el9.4.0+21000+0a1b2c3d' }),
};
const SLE12_SPECS = {
  'openssl-1_1': noarchRpmSpec({ name: 'openssl-1_1', version: '1.1.1d', release: '2.80.1', subpackage: 'libopenssl1_1' }),
};
const SLE15_SPECS = {
  'openssl-1_1': noarchRpmSpec({ name: 'openssl-1_1', version: '1.1.1l', release: '150500.17.22.1', subpackage: 'libopenssl1_1' }),
};

const OS_RELEASE = {
  ubuntu: 'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\nVERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\n',
  rhel: 'NAME="Red Hat Enterprise Linux"\nVERSION="9.4 (Plow)"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="9.4"\nPLATFORM_ID="platform:el9"\nPRETTY_NAME="Red Hat Enterprise Linux 9.4 (Plow)"\nCPE_NAME="cpe:/o:redhat:enterprise_linux:9::baseos"\n',
  rocky: 'NAME="Rocky Linux"\nVERSION="9.3 (Blue Onyx)"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.3"\nPLATFORM_ID="platform:el9"\nPRETTY_NAME="Rocky Linux 9.3 (Blue Onyx)"\nCPE_NAME="cpe:/o:rocky:rocky:9::baseos"\n',
  sles: 'NAME="SLES"\nVERSION="12-SP5"\nVERSION_ID="12.5"\nPRETTY_NAME="SUSE Linux Enterprise Server 12 SP5"\nID="sles"\nANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:12:sp5"\n',
  sles15: 'NAME="SLES"\nVERSION="15-SP5"\nVERSION_ID="15.5"\nPRETTY_NAME="SUSE Linux Enterprise Server 15 SP5"\nID="sles"\nID_LIKE="suse"\nANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:15:sp5"\n',
};

const UBUNTU_STATUS = `Package: libssl3
Status: install ok installed
Priority: optional
Section: libs
Installed-Size: 5946
Maintainer: Ubuntu Developers <ubuntu-devel-discuss@lists.ubuntu.com>
Architecture: amd64
Multi-Arch: same
Source: openssl
Version: 3.0.2-0ubuntu1.14
Depends: libc6 (>= 2.34)
Description: Secure Sockets Layer toolkit - shared libraries

`;

const FEED = [
  osvRecord('UBUNTU-CVE-2099-1001', 'Ubuntu:22.04:LTS', 'openssl', [{ introduced: '0' }, { fixed: '3.0.2-0ubuntu1.15' }]),
  osvRecord('UBUNTU-CVE-2099-1002', 'Ubuntu:20.04:LTS', 'openssl', [{ introduced: '0' }, { fixed: '1.1.1f-1ubuntu2.22' }]),
  osvRecord('UBUNTU-CVE-2099-1003', 'Ubuntu:Pro:FIPS-updates:22.04:LTS', 'openssl', [{ introduced: '0' }, { fixed: '3.0.2-0ubuntu1.15+Fips1' }]),
  osvRecord('RHSA-2099:1004', 'Red Hat:enterprise_linux:9::appstream', 'nodejs', [{ introduced: '0' }, { fixed: '1:16.20.2-4.el9_4' }]),
  osvRecord('RHSA-2099:1005', 'Red Hat:enterprise_linux:9::baseos', 'openssl-libs', [{ introduced: '0' }, { fixed: '1:3.0.7-28.el9_4' }]),
  osvRecord('RHSA-2099:1006', 'Red Hat:enterprise_linux:8::appstream', 'nodejs', [{ introduced: '0' }, { fixed: '1:16.20.2-4.module+el8.9.0+21000+aaaa1111' }]),
  osvRecord('RHSA-2099:1007', 'Red Hat:rhel_eus:9.2::appstream', 'nodejs', [{ introduced: '0' }, { fixed: '1:16.20.2-9.el9_2' }]),
  // The nodejs:18 stream: a module build whose version sorts above the non-modular nodejs 16.
  osvRecord('RHSA-2099:1008', 'Red Hat:enterprise_linux:9::appstream', 'nodejs', [{ introduced: '0' }, { fixed: '1:18.20.2-1.module+el9.4.0+21731+46b5c4a5' }]),
  osvRecord('RHSA-2099:1009', 'Red Hat:enterprise_linux:9::appstream', 'postgresql', [{ introduced: '0' }, { fixed: '0:15.7-1.module+el9.4.0+21800+bbbb2222' }]),
  osvRecord('RLSA-2099:1010', 'Rocky Linux:9', 'openssl', [{ introduced: '0' }, { fixed: '1:3.0.7-28.el9_4' }]),
  osvRecord('RLSA-2099:1011', 'Rocky Linux:8', 'openssl', [{ introduced: '0' }, { fixed: '1:3.0.7-28.el8_10' }]),
  osvRecord('SUSE-SU-2099:1012-1', 'SUSE:Linux Enterprise Server 12 SP5', 'openssl-1_1', [{ introduced: '0' }, { fixed: '1.1.1d-2.90.1' }]),
  osvRecord('SUSE-SU-2099:1013-1', 'SUSE:Linux Enterprise Server 15 SP5', 'openssl-1_1', [{ introduced: '0' }, { fixed: '1.1.1l-150500.17.25.1' }]),
];

let server: TestServer;
let work: string;
let el9: RpmdbFixture;
let sle12: RpmdbFixture;
let sle15: RpmdbFixture;
const digests: Record<string, string> = {};

interface Finding {
  vuln: string;
  package_name: string;
  package_type: string;
  package_version: string;
  feed_group: string;
  fix: string;
}

async function findings(image: string): Promise<string[]> {
  const res = await raw(server.url, 'GET', `/v2/images/${digests[image]}/vuln/all`);
  expect(res.status).toBe(200);
  return (res.json.vulnerabilities as Finding[]).map((v) => `${v.vuln} ${v.feed_group} ${v.package_type}:${v.package_name} ${v.package_version} fix ${v.fix}`).sort();
}

beforeAll(async () => {
  el9 = buildRpmdbFixture(EL9_SPECS);
  sle12 = buildRpmdbFixture(SLE12_SPECS);
  sle15 = buildRpmdbFixture(SLE15_SPECS);
  work = mkdtempSync(join(tmpdir(), 'vigil-distros-'));
  writeRecords(join(work, 'osv'), Object.fromEntries(FEED.map((r) => [r.id, r])));
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(synced.json.status).toBe('done');
  const sle12Packages = buildBerkeleyPackagesFile(readRpmdbSqliteBlobs(sle12.sqlite), { pageSize: 4096 });
  const sle15PackagesDb = buildNdbPackagesFile(readRpmdbSqliteBlobs(sle15.sqlite));
  const images: [string, FileSpec[]][] = [
    ['ubuntu', [{ path: 'etc/os-release', content: OS_RELEASE.ubuntu }, { path: 'var/lib/dpkg/status', content: UBUNTU_STATUS }]],
    ['rhel', [{ path: 'etc/os-release', content: OS_RELEASE.rhel }, { path: 'var/lib/rpm/rpmdb.sqlite', content: el9.sqlite }]],
    ['rocky', [{ path: 'etc/os-release', content: OS_RELEASE.rocky }, { path: 'var/lib/rpm/rpmdb.sqlite', content: el9.sqlite }]],
    ['sles', [{ path: 'etc/os-release', content: OS_RELEASE.sles }, { path: 'var/lib/rpm/Packages', content: sle12Packages }]],
    ['sles15', [{ path: 'etc/os-release', content: OS_RELEASE.sles15 }, { path: 'usr/lib/sysimage/rpm/Packages.db', content: sle15PackagesDb }]],
  ];
  for (const [name, files] of images) digests[name] = await analyzeArchiveImage(server, [files], `registry.example.com/distros/${name}:latest`);
}, 180_000);

afterAll(async () => {
  await server?.close();
  el9?.cleanup();
  sle12?.cleanup();
  sle15?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg', 'perl'))('distro images against their own release in OSV', () => {
  it('Ubuntu 22.04: the LTS release record, not another release, not the FIPS build', async () => {
    expect(await findings('ubuntu')).toEqual(['UBUNTU-CVE-2099-1001 ubuntu:22.04 dpkg:libssl3 3.0.2-0ubuntu1.14 fix 3.0.2-0ubuntu1.15']);
  });

  it('RHEL 9: the appstream and baseos streams of RHEL 9; not RHEL 8, EUS, or another module stream', async () => {
    expect(await findings('rhel')).toEqual([
      'RHSA-2099:1004 rhel:9 rpm:nodejs 1:16.20.2-3.el9 fix 1:16.20.2-4.el9_4',
      'RHSA-2099:1005 rhel:9 rpm:openssl-libs 1:3.0.7-27.el9 fix 1:3.0.7-28.el9_4',
      'RHSA-2099:1009 rhel:9 rpm:postgresql 15.6-1.module+el9.4.0+21000+0a1b2c3d fix 0:15.7-1.module+el9.4.0+21800+bbbb2222',
    ]);
  });

  it('Rocky Linux 9: its own feed by source package, not Rocky 8, not Red Hat', async () => {
    expect(await findings('rocky')).toEqual(['RLSA-2099:1010 rocky:9 rpm:openssl-libs 1:3.0.7-27.el9 fix 1:3.0.7-28.el9_4']);
  });

  it('SLES 12 SP5: its product by source package, not SLE 15 SP5', async () => {
    expect(await findings('sles')).toEqual(['SUSE-SU-2099:1012-1 sles:12.5 rpm:libopenssl1_1 1.1.1d-2.80.1 fix 1.1.1d-2.90.1']);
  });

  it('SLES 15 SP5 with an ndb Packages.db: its rpm packages with SUSE purls, and its own product matched', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digests.sles15}/content/os`);
    expect(res.status).toBe(200);
    expect((res.json.content as { package: string; version: string; purl: string; location: string }[]).map((p) => [p.package, p.version, p.purl, p.location])).toEqual([
      ['libopenssl1_1', '1.1.1l-150500.17.22.1', 'pkg:rpm/sles/libopenssl1_1@1.1.1l-150500.17.22.1?arch=noarch&distro=sles-15.5', '/usr/lib/sysimage/rpm/Packages.db'],
    ]);
    expect(await findings('sles15')).toEqual(['SUSE-SU-2099:1013-1 sles:15.5 rpm:libopenssl1_1 1.1.1l-150500.17.22.1 fix 1.1.1l-150500.17.25.1']);
  });

  it('lists a namespace per release and product stream, with its records', async () => {
    const res = await raw(server.url, 'GET', '/v2/system/feeds');
    expect(res.status).toBe(200);
    const vulnerabilityDb = (res.json as { name: string; groups: { name: string; namespaces: { name: string; record_count: number }[] }[] }[]).find((f) => f.name === 'vulnerability_db')!;
    const osv = vulnerabilityDb.groups.find((g) => g.name === 'osv')!;
    const namespaces = Object.fromEntries(osv.namespaces.map((g) => [g.name, g.record_count]));
    expect(namespaces).toEqual({
      'rhel:8': 1,
      'rhel:9': 4,
      'rhel:rhel_eus:9.2::appstream': 1,
      'rocky:8': 1,
      'rocky:9': 1,
      'sles:12.5': 1,
      'sles:15.5': 1,
      'ubuntu:20.04': 1,
      'ubuntu:22.04': 1,
      'ubuntu:22.04:FIPS-updates': 1,
    });
  });
});
