/**
 * Distro packages matched against the OSV distro ecosystems as published (records shaped as Red Hat's, Rocky's,
 * AlmaLinux's, SUSE's, Ubuntu's, Wolfi's and Chainguard's exports write them), through the index feed-sync builds:
 * each image release meets its own release's records only, and RHEL-family module builds meet modular entries only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as migration021 from '../../src/db/migrations/021_distro_release_keys.js';
import type { Db } from '../../src/db/index.js';
import type { DistroInfo } from '../../src/ecosystems/model.js';
import { syncOsvSource } from '../../src/vulns/feed-sync.js';
import { matchPackage } from '../../src/vulns/match-package.js';
import { knexVulnerabilityProvider, markVulnerabilityDataChanged } from '../../src/vulns/vulnerability-repository.js';
import { createTestDb } from '../support/db.js';

let db: Db;
let close: () => Promise<void>;
let dir: string;

interface Entry {
  ecosystem: string;
  name: string;
  fixed?: string;
  purl?: string;
}

/** A record with one affected entry per product stream, as the distributions publish them. */
function record(id: string, entries: Entry[]) {
  return {
    schema_version: '1.6.7',
    id,
    modified: '2026-01-01T00:00:00Z',
    affected: entries.map((e) => ({
      package: { ecosystem: e.ecosystem, name: e.name, ...(e.purl ? { purl: e.purl } : {}) },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, ...(e.fixed ? [{ fixed: e.fixed }] : [])] }],
    })),
  };
}

const RHEL_9: DistroInfo = { name: 'rhel', version: '9.4', like: ['fedora'] };
const RHEL_8: DistroInfo = { name: 'rhel', version: '8.10', like: ['fedora'] };
const ROCKY_9: DistroInfo = { name: 'rocky', version: '9.3', like: ['rhel', 'centos', 'fedora'] };
const ALMA_8: DistroInfo = { name: 'almalinux', version: '8.10', like: ['rhel', 'centos', 'fedora'] };
const SLES_15_5: DistroInfo = { name: 'sles', version: '15.5', like: ['suse'] };
const SLES_15_4: DistroInfo = { name: 'sles', version: '15.4', like: ['suse'] };
const LEAP_15_5: DistroInfo = { name: 'opensuse-leap', version: '15.5', like: ['suse', 'opensuse'] };
const TUMBLEWEED: DistroInfo = { name: 'opensuse-tumbleweed', version: '20240328', like: ['opensuse', 'suse'] };
const UBUNTU_22_04: DistroInfo = { name: 'ubuntu', version: '22.04', like: ['debian'] };
const WOLFI: DistroInfo = { name: 'wolfi', version: '20230201', like: [] };
const CHAINGUARD: DistroInfo = { name: 'chainguard', version: '20230214', like: [] };
const MAGEIA_9: DistroInfo = { name: 'mageia', version: '9', like: ['mandriva', 'fedora'] };

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  dir = mkdtempSync(join(tmpdir(), 'vigil-distro-match-'));
  const records = [
    // One erratum, two repositories of RHEL 9, and an EUS stream and RHEL 8 that must stay apart.
    record('RHSA-2099:0101', [
      { ecosystem: 'Red Hat:enterprise_linux:9::appstream', name: 'nodejs', fixed: '1:16.20.2-4.el9_4', purl: 'pkg:rpm/redhat/nodejs' },
      { ecosystem: 'Red Hat:rhel_eus:9.2::appstream', name: 'nodejs', fixed: '1:16.20.2-9.el9_2', purl: 'pkg:rpm/redhat/nodejs' },
      { ecosystem: 'Red Hat:enterprise_linux:8::appstream', name: 'nodejs', fixed: '1:16.20.2-4.module+el8.10.0+21000+aaaa1111', purl: 'pkg:rpm/redhat/nodejs' },
    ]),
    record('RHSA-2099:0102', [{ ecosystem: 'Red Hat:enterprise_linux:9::baseos', name: 'openssl', fixed: '1:3.0.7-28.el9_4', purl: 'pkg:rpm/redhat/openssl' }]),
    // The nodejs:18 module stream: same rpm name, module builds.
    record('RHSA-2099:0103', [{ ecosystem: 'Red Hat:enterprise_linux:9::appstream', name: 'nodejs', fixed: '1:18.20.2-1.module+el9.4.0+21731+46b5c4a5', purl: 'pkg:rpm/redhat/nodejs' }]),
    record('RLSA-2099:0104', [{ ecosystem: 'Rocky Linux:9', name: 'openssl', fixed: '1:3.0.7-28.el9_4' }]),
    record('RLSA-2099:0105', [{ ecosystem: 'Rocky Linux:8', name: 'openssl', fixed: '1:1.1.1k-14.el8_10' }]),
    // AlmaLinux writes module builds as `.module_el8...`.
    record('ALSA-2099:0106', [{ ecosystem: 'AlmaLinux:8', name: 'nodejs', fixed: '1:20.12.2-2.module_el8.10.0+3831+a4b3c2d1' }]),
    record('ALSA-2099:0107', [{ ecosystem: 'AlmaLinux:8', name: 'curl', fixed: '7.61.1-34.el8_10.2' }]),
    // SUSE files base packages under the module that ships them, named by source package.
    record('SUSE-SU-2099:0108-1', [
      { ecosystem: 'SUSE:Linux Enterprise Module for Basesystem 15 SP5', name: 'openssl-3', fixed: '3.0.8-150500.5.20.1' },
      { ecosystem: 'SUSE:Linux Enterprise Server 15 SP4-LTSS', name: 'openssl-3', fixed: '3.0.8-150400.4.30.1' },
      { ecosystem: 'SUSE:Linux Enterprise Micro 5.5', name: 'openssl-3', fixed: '3.0.8-150500.5.20.1' },
    ]),
    record('openSUSE-SU-2099:0109-1', [{ ecosystem: 'openSUSE:Leap 15.5', name: 'openssl-3', fixed: '3.0.8-150500.5.20.1' }]),
    record('openSUSE-SU-2099:0110-1', [{ ecosystem: 'openSUSE:Tumbleweed', name: 'openssl-3', fixed: '3.1.4-2.1' }]),
    // Ubuntu: the release, its Pro (ESM) continuation, and a FIPS build that must not meet a standard image.
    record('UBUNTU-CVE-2099-0111', [
      { ecosystem: 'Ubuntu:22.04:LTS', name: 'openssl', fixed: '3.0.2-0ubuntu1.15' },
      { ecosystem: 'Ubuntu:Pro:FIPS-updates:22.04:LTS', name: 'openssl', fixed: '3.0.2-0ubuntu1.15+Fips1' },
    ]),
    record('CGA-2099-0112', [{ ecosystem: 'Wolfi', name: 'openssl', fixed: '3.3.0-r5' }]),
    record('CGA-2099-0113', [{ ecosystem: 'Chainguard', name: 'openssl', fixed: '3.3.0-r7' }]),
    record('MGASA-2099-0114', [{ ecosystem: 'Mageia:9', name: 'openssl', fixed: '3.0.15-1.mga9' }]),
  ];
  records.forEach((r, i) => writeFileSync(join(dir, `${i}.json`), JSON.stringify(r)));
  await syncOsvSource(db, 'osv', dir);
});
afterAll(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

const found = (m: { vulnId: string; group: string }[]) => m.map((x) => `${x.vulnId} ${x.group}`);

describe('Red Hat product streams', () => {
  it('matches an RHEL 9 package against every RHEL 9 repository stream, not EUS, not RHEL 8', async () => {
    const nodejs = await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'nodejs', version: '1:16.20.2-3.el9', origin: 'nodejs' }, RHEL_9);
    expect(nodejs).toEqual([{ vulnId: 'RHSA-2099:0101', feed: 'osv', group: 'rhel:9', matchedName: 'nodejs', matchedBy: 'package', fixState: 'fixed', fixedIn: ['1:16.20.2-4.el9_4'] }]);
    const libs = await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'openssl-libs', version: '1:3.0.7-27.el9', origin: 'openssl' }, RHEL_9);
    expect(found(libs)).toEqual(['RHSA-2099:0102 rhel:9']);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'openssl-libs', version: '1:3.0.7-28.el9_4', origin: 'openssl' }, RHEL_9)).toEqual([]);
  });

  it('matches a modular entry to module builds only, and a non-modular one to non-modular rpms only', async () => {
    // nodejs:18 from its module stream, below the stream's fix: the non-modular RHSA-0101 (16.x) is not about it.
    const stream18 = await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'nodejs', version: '1:18.19.0-1.module+el9.3.0+20711+a3b2c5d1', origin: 'nodejs' }, RHEL_9);
    expect(found(stream18)).toEqual(['RHSA-2099:0103 rhel:9']);
    // On RHEL 8 the default nodejs is itself a module stream.
    const rhel8 = await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'nodejs', version: '1:16.20.2-3.module+el8.9.0+20000+bbbb2222', origin: 'nodejs' }, RHEL_8);
    expect(found(rhel8)).toEqual(['RHSA-2099:0101 rhel:8']);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'nodejs', version: '1:16.20.2-3.el8', origin: 'nodejs' }, RHEL_8)).toEqual([]);
  });

  it('matches Rocky Linux and AlmaLinux by major release, each in its own feed, module builds included', async () => {
    expect(found(await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'openssl-libs', version: '1:3.0.7-27.el9', origin: 'openssl' }, ROCKY_9))).toEqual(['RLSA-2099:0104 rocky:9']);
    const moduleBuild = await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'nodejs', version: '1:20.11.1-1.module_el8.9.0+3780+f1e2d3c4', origin: 'nodejs' }, ALMA_8);
    expect(found(moduleBuild)).toEqual(['ALSA-2099:0106 almalinux:8']);
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'nodejs', version: '1:10.24.0-1.el8', origin: 'nodejs' }, ALMA_8)).toEqual([]);
    expect(found(await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'libcurl', version: '7.61.1-34.el8', origin: 'curl' }, ALMA_8))).toEqual(['ALSA-2099:0107 almalinux:8']);
  });
});

describe('SUSE and openSUSE products', () => {
  it('matches SLES 15 SP5 against its modules, SP4 against its LTSS product, by source package', async () => {
    const libssl = { type: 'rpm', name: 'libopenssl3', version: '3.0.8-150500.5.14.1', origin: 'openssl-3' };
    expect(found(await matchPackage(knexVulnerabilityProvider(db), libssl, SLES_15_5))).toEqual(['SUSE-SU-2099:0108-1 sles:15.5']);
    const sp4 = await matchPackage(knexVulnerabilityProvider(db), { ...libssl, version: '3.0.8-150400.4.25.1' }, SLES_15_4);
    expect(sp4).toEqual([expect.objectContaining({ vulnId: 'SUSE-SU-2099:0108-1', group: 'sles:15.4', fixedIn: ['3.0.8-150400.4.30.1'] })]);
  });

  it('matches openSUSE Leap and Tumbleweed in their own lines', async () => {
    const libssl = { type: 'rpm', name: 'libopenssl3', version: '3.0.8-150500.5.14.1', origin: 'openssl-3' };
    expect(found(await matchPackage(knexVulnerabilityProvider(db), libssl, LEAP_15_5))).toEqual(['openSUSE-SU-2099:0109-1 opensuse:leap-15.5']);
    expect(found(await matchPackage(knexVulnerabilityProvider(db), { ...libssl, version: '3.1.4-1.1' }, TUMBLEWEED))).toEqual(['openSUSE-SU-2099:0110-1 opensuse:tumbleweed']);
  });
});

describe('Ubuntu, Wolfi, Chainguard, Mageia', () => {
  it('matches an Ubuntu 22.04 package against the release, never against the FIPS build', async () => {
    const libssl = await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'libssl3', version: '3.0.2-0ubuntu1.14', origin: 'openssl' }, UBUNTU_22_04);
    expect(libssl).toEqual([expect.objectContaining({ vulnId: 'UBUNTU-CVE-2099-0111', group: 'ubuntu:22.04', fixedIn: ['3.0.2-0ubuntu1.15'] })]);
    // Fixed in the release; the FIPS build's higher version must not make it look vulnerable.
    expect(await matchPackage(knexVulnerabilityProvider(db), { type: 'dpkg', name: 'libssl3', version: '3.0.2-0ubuntu1.15', origin: 'openssl' }, UBUNTU_22_04)).toEqual([]);
  });

  it('matches the rolling Wolfi and Chainguard against their release-less records, each its own', async () => {
    const pkg = { type: 'apk', name: 'libcrypto3', version: '3.3.0-r4', origin: 'openssl' };
    expect(found(await matchPackage(knexVulnerabilityProvider(db), pkg, WOLFI))).toEqual(['CGA-2099-0112 wolfi']);
    expect(found(await matchPackage(knexVulnerabilityProvider(db), pkg, CHAINGUARD))).toEqual(['CGA-2099-0113 chainguard']);
  });

  it('matches Mageia by release', async () => {
    expect(found(await matchPackage(knexVulnerabilityProvider(db), { type: 'rpm', name: 'lib64openssl3', version: '3.0.13-1.mga9', origin: 'openssl' }, MAGEIA_9))).toEqual(['MGASA-2099-0114 mageia:9']);
  });
});

describe('migration 021: index rows keyed before the release keys changed', () => {
  it('makes the next sync rewrite them under the new keys', async () => {
    // What the previous parser wrote for `Red Hat:enterprise_linux:9::baseos` and a Pro FIPS entry.
    await db('vulnerability_affected').where({ vuln_id: 'RHSA-2099:0102' }).update({ release: 'enterprise_linux:9::baseos', grp: 'rhel:enterprise_linux:9::baseos' });
    const fips = db('vulnerability_affected').where({ vuln_id: 'UBUNTU-CVE-2099-0111' }).andWhere('affected', 'like', '%"pro":true%');
    await fips.clone().update({ release: '22.04', grp: 'ubuntu:22.04' });
    // Written behind the provider's back: a change of the index replaces the data-version stamp, as a sync would.
    await markVulnerabilityDataChanged(db);
    const libs = { type: 'rpm', name: 'openssl-libs', version: '1:3.0.7-27.el9', origin: 'openssl' };
    expect(await matchPackage(knexVulnerabilityProvider(db), libs, RHEL_9)).toEqual([]);

    await migration021.up(db);
    const { stats } = await syncOsvSource(db, 'osv', dir);
    // The Red Hat, Rocky, Alma, SUSE, openSUSE, Mageia records and the Ubuntu one with a Pro entry; not Wolfi's or Chainguard's.
    expect(stats).toMatchObject({ updated: 12, unchanged: 2 });
    expect(found(await matchPackage(knexVulnerabilityProvider(db), libs, RHEL_9))).toEqual(['RHSA-2099:0102 rhel:9']);
    expect(await fips.clone().select('release', 'grp')).toEqual([{ release: '22.04:FIPS-updates', grp: 'ubuntu:22.04:FIPS-updates' }]);
  });
});
