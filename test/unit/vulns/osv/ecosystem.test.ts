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
    ['Ubuntu:Pro:FIPS-updates:22.04:LTS', { ecosystem: 'Ubuntu', release: '22.04', lts: true, pro: true }],
    ['Red Hat:enterprise_linux:9::appstream', { ecosystem: 'Red Hat', release: 'enterprise_linux:9::appstream' }],
    ['Rocky Linux:9', { ecosystem: 'Rocky Linux', release: '9' }],
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
});
