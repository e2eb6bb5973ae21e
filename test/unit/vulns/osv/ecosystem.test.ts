import { describe, expect, it } from 'vitest';
import { parseEcosystem } from '../../../../src/vulns/osv/ecosystem.js';

describe('parseEcosystem', () => {
  it.each([
    ['PyPI', { ecosystem: 'PyPI' }],
    ['npm', { ecosystem: 'npm' }],
    ['Go', { ecosystem: 'Go' }],
    ['Maven', { ecosystem: 'Maven' }],
    ['RubyGems', { ecosystem: 'RubyGems' }],
    ['crates.io', { ecosystem: 'crates.io' }],
    ['Debian:12', { ecosystem: 'Debian', release: '12' }],
    ['Debian:7', { ecosystem: 'Debian', release: '7' }],
    ['Alpine:v3.18', { ecosystem: 'Alpine', release: '3.18' }],
    ['Ubuntu:22.04:LTS', { ecosystem: 'Ubuntu', release: '22.04', lts: true }],
    ['Ubuntu:24.10', { ecosystem: 'Ubuntu', release: '24.10' }],
    ['Ubuntu:Pro:18.04:LTS', { ecosystem: 'Ubuntu', release: '18.04', lts: true, pro: true }],
    // Pro services with builds of their own keep a key no image release equals.
    ['Ubuntu:Pro:FIPS-updates:22.04:LTS', { ecosystem: 'Ubuntu', release: '22.04:FIPS-updates', lts: true, pro: true }],
    ['Ubuntu:Pro:FIPS:16.04:LTS', { ecosystem: 'Ubuntu', release: '16.04:FIPS', lts: true, pro: true }],
    ['Ubuntu:Pro:22.04:LTS:Realtime:Kernel', { ecosystem: 'Ubuntu', release: '22.04:Realtime:Kernel', lts: true, pro: true }],
    // Mainline RHEL streams share the major release; other product streams are kept whole.
    ['Red Hat:enterprise_linux:9::appstream', { ecosystem: 'Red Hat', release: '9' }],
    ['Red Hat:enterprise_linux:9::baseos', { ecosystem: 'Red Hat', release: '9' }],
    ['Red Hat:enterprise_linux:8::crb', { ecosystem: 'Red Hat', release: '8' }],
    ['Red Hat:enterprise_linux:7::server', { ecosystem: 'Red Hat', release: '7' }],
    ['Red Hat:enterprise_linux:10.0', { ecosystem: 'Red Hat', release: '10' }],
    ['Red Hat:rhel_aus:8.4::appstream', { ecosystem: 'Red Hat', release: 'rhel_aus:8.4::appstream' }],
    ['Red Hat:rhel_eus:9.2::baseos', { ecosystem: 'Red Hat', release: 'rhel_eus:9.2::baseos' }],
    ['Red Hat:enterprise_linux_eus:10.0', { ecosystem: 'Red Hat', release: 'enterprise_linux_eus:10.0' }],
    ['Red Hat:openshift:4.14::el9', { ecosystem: 'Red Hat', release: 'openshift:4.14::el9' }],
    ['Rocky Linux:9', { ecosystem: 'Rocky Linux', release: '9' }],
    ['AlmaLinux:8', { ecosystem: 'AlmaLinux', release: '8' }],
    ['Mageia:9', { ecosystem: 'Mageia', release: '9' }],
    ['Wolfi', { ecosystem: 'Wolfi' }],
    ['Chainguard', { ecosystem: 'Chainguard' }],
    // SLE products and modules of one service pack share its VERSION_ID; SLE Micro is a line of its own.
    ['SUSE:Linux Enterprise Server 15 SP5', { ecosystem: 'SUSE', release: '15.5' }],
    ['SUSE:Linux Enterprise Module for Basesystem 15 SP5', { ecosystem: 'SUSE', release: '15.5' }],
    ['SUSE:Linux Enterprise Server 15 SP4-LTSS', { ecosystem: 'SUSE', release: '15.4' }],
    ['SUSE:Linux Enterprise High Performance Computing 15 SP5-ESPOS', { ecosystem: 'SUSE', release: '15.5' }],
    ['SUSE:Linux Enterprise Server 12 SP5', { ecosystem: 'SUSE', release: '12.5' }],
    ['SUSE:Linux Enterprise Server 15', { ecosystem: 'SUSE', release: '15' }],
    ['SUSE:Linux Enterprise Micro 5.5', { ecosystem: 'SUSE', release: 'micro-5.5' }],
    ['SUSE:Linux Micro 6.0', { ecosystem: 'SUSE', release: 'micro-6.0' }],
    ['SUSE:Enterprise Storage 7.1', { ecosystem: 'SUSE', release: 'Enterprise Storage 7.1' }],
    ['SUSE:Linux Enterprise Module for SUSE Manager Server 4.3', { ecosystem: 'SUSE', release: 'Linux Enterprise Module for SUSE Manager Server 4.3' }],
    ['SUSE:Linux Enterprise Module for Python 3 15 SP5', { ecosystem: 'SUSE', release: '15.5' }],
    ['openSUSE:Leap 15.5', { ecosystem: 'openSUSE', release: 'leap-15.5' }],
    ['openSUSE:Leap 15.6 NonFree', { ecosystem: 'openSUSE', release: 'leap-15.6' }],
    ['openSUSE:Leap Micro 5.5', { ecosystem: 'openSUSE', release: 'leap-micro-5.5' }],
    ['openSUSE:Tumbleweed', { ecosystem: 'openSUSE', release: 'tumbleweed' }],
    ['Photon OS:3.0', { ecosystem: 'Photon OS', release: '3.0' }],
    ['Maven:https://maven.google.com', { ecosystem: 'Maven', repository: 'https://maven.google.com' }],
  ])('%s', (raw, expected) => {
    expect(parseEcosystem(raw)).toEqual({ ...expected, raw });
  });

  it('canonicalises the spelling of known ecosystems', () => {
    expect(parseEcosystem('pypi').ecosystem).toBe('PyPI');
    expect(parseEcosystem('CRATES.IO').ecosystem).toBe('crates.io');
    expect(parseEcosystem('debian:11')).toEqual({ ecosystem: 'Debian', release: '11', raw: 'debian:11' });
  });

  it('keeps unknown ecosystems as written and ignores an empty suffix', () => {
    expect(parseEcosystem('Nixpkgs:24.05')).toEqual({ ecosystem: 'Nixpkgs', release: '24.05', raw: 'Nixpkgs:24.05' });
    expect(parseEcosystem('Debian:')).toEqual({ ecosystem: 'Debian', raw: 'Debian:' });
  });

  it('keeps an over-long product suffix as written, without matching patterns over it', () => {
    const long = `Linux Enterprise ${'x '.repeat(50_000)}15 SP5`;
    expect(parseEcosystem(`SUSE:${long}`).release).toBe(long);
    expect(parseEcosystem(`Red Hat:enterprise_linux:9${'::a'.repeat(100)}`).release).toBe(`enterprise_linux:9${'::a'.repeat(100)}`);
  });

  // A pattern that could split these two ways per colon would not finish within the test's timeout.
  it('parses suffixes built to make the patterns backtrack', () => {
    for (const raw of [`Red Hat:enterprise_linux:9${':'.repeat(180)}!`, `Red Hat:enterprise_linux:9${'::a'.repeat(60)}!`, `SUSE:Linux Enterprise ${'1 '.repeat(85)}!`, `openSUSE:Leap ${'1.'.repeat(90)}`]) {
      expect(parseEcosystem(raw).release).toBe(raw.slice(raw.indexOf(':') + 1));
    }
  });
});
