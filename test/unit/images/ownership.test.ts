/**
 * Ownership of language packages by OS packages (images/ownership.ts): the keys file lists are reduced to, rpm's
 * file names (from a database rpm itself wrote, and a hand-made pre-4.0 header), dpkg's .list files, the owner
 * assignment after the walk, syft's ownership relationships, and the matcher skipping owned packages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPMTAG, RpmType, parseRpmHeader } from '../../../src/ecosystems/rpm/header.js';
import { rpmFilePaths } from '../../../src/ecosystems/rpm/cataloger.js';
import { catalogerNamed, ownershipKey } from '../../../src/ecosystems/registry.js';
import type { CatalogedPackage } from '../../../src/ecosystems/model.js';
import { assignOwners } from '../../../src/images/ownership.js';
import { readSbomPackages } from '../../../src/images/sbom/index.js';
import { lookupTarget } from '../../../src/vulns/ecosystems.js';
import { buildRpmHeaderBlob } from '../ecosystems/rpm/testdata/rpm-header-builder.js';
import { buildRpmdbFixture, type RpmdbFixture } from '../ecosystems/rpm/testdata/rpmdb.js';
import { missingTools } from '../../support/tools.js';

const SITE = '/usr/lib64/python3.9/site-packages';
const dpkgCataloger = catalogerNamed('dpkg');
const rpmCataloger = catalogerNamed('rpm');

describe('ownershipKey', () => {
  it('reduces a Python metadata entry and everything inside it to the entry', () => {
    expect(ownershipKey(`${SITE}/PyYAML-5.4.1-py3.9.egg-info`)).toBe(`${SITE}/PyYAML-5.4.1-py3.9.egg-info`);
    expect(ownershipKey(`${SITE}/PyYAML-5.4.1-py3.9.egg-info/PKG-INFO`)).toBe(`${SITE}/PyYAML-5.4.1-py3.9.egg-info`);
    expect(ownershipKey(`${SITE}/idna-2.10.dist-info/METADATA`)).toBe(`${SITE}/idna-2.10.dist-info`);
    expect(ownershipKey(`${SITE}/idna-2.10.dist-info/`)).toBe(`${SITE}/idna-2.10.dist-info`);
  });

  it('keeps gemspecs and installed package.json files as they are, and nothing else', () => {
    expect(ownershipKey('/usr/share/gems/specifications/json-2.5.1.gemspec')).toBe('/usr/share/gems/specifications/json-2.5.1.gemspec');
    expect(ownershipKey('/usr/share/rubygems-integration/all/specifications/rack-2.2.6.4.gemspec')).toBe('/usr/share/rubygems-integration/all/specifications/rack-2.2.6.4.gemspec');
    expect(ownershipKey('/usr/lib/node_modules/npm/package.json')).toBe('/usr/lib/node_modules/npm/package.json');
    // Debian's JavaScript policy: node-* packages install into /usr/share/nodejs (arch-dependent: /usr/lib/<triplet>/nodejs).
    expect(ownershipKey('/usr/share/nodejs/semver/package.json')).toBe('/usr/share/nodejs/semver/package.json');
    expect(ownershipKey('/usr/share/nodejs/@types/node/package.json')).toBe('/usr/share/nodejs/@types/node/package.json');
    expect(ownershipKey('/usr/lib/x86_64-linux-gnu/nodejs/bufferutil/package.json')).toBe('/usr/lib/x86_64-linux-gnu/nodejs/bufferutil/package.json');
    expect(ownershipKey('/usr/share/nodejs/semver/functions/package.json')).toBeUndefined();
    for (const path of [`${SITE}/yaml/__init__.py`, SITE, '/usr/bin/python3', '/usr/share/doc/python3-pyyaml/README', '/usr/lib/node_modules/npm/lib/npm.js'])
      expect(ownershipKey(path)).toBeUndefined();
  });

  it('keeps a project lock file as it is, but not one inside node_modules (never cataloged)', () => {
    const lock = '/usr/lib/ruby/gems/3.1.0/gems/typeprof-0.21.2/vscode/package-lock.json';
    expect(ownershipKey(lock)).toBe(lock);
    expect(ownershipKey('/app/node_modules/x/package-lock.json')).toBeUndefined();
  });

  it('reduces a Java archive, and any archive nested in it, to the top-level archive file', () => {
    expect(ownershipKey('/usr/share/java/commons-text-1.10.0.jar')).toBe('/usr/share/java/commons-text-1.10.0.jar');
    expect(ownershipKey('/usr/share/jenkins/jenkins.war:WEB-INF/lib/commons-io-2.15.1.jar')).toBe('/usr/share/jenkins/jenkins.war');
    expect(ownershipKey('/opt/app/app.jar:BOOT-INF/lib/a.jar:META-INF/lib/b.jar')).toBe('/opt/app/app.jar');
    // A colon elsewhere in a path is part of the name, not a nesting separator.
    expect(ownershipKey('/srv/a:b/lib/x.JAR')).toBe('/srv/a:b/lib/x.JAR');
    for (const path of ['/usr/share/java', '/usr/share/maven-repo/org/apache/commons/commons-text/1.10.0/commons-text-1.10.0.pom', '/srv/a:b/x.txt'])
      expect(ownershipKey(path)).toBeUndefined();
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('rpm file lists', () => {
  let fixture: RpmdbFixture;
  let packages: CatalogedPackage[];

  beforeAll(async () => {
    fixture = buildRpmdbFixture({
      'python3-pyyaml': `
Name: python3-pyyaml
Version: 5.4.1
Release: 6.el9
Summary: YAML parser and emitter for Python
License: MIT
AutoReqProv: no
%global debug_package %{nil}

%description
PyYAML as the distribution builds it.

%install
mkdir -p %{buildroot}${SITE}/PyYAML-5.4.1-py3.9.egg-info %{buildroot}${SITE}/yaml %{buildroot}/usr/share/gems/specifications
printf 'Name: PyYAML\\nVersion: 5.4.1\\n' > %{buildroot}${SITE}/PyYAML-5.4.1-py3.9.egg-info/PKG-INFO
echo yaml > %{buildroot}${SITE}/PyYAML-5.4.1-py3.9.egg-info/top_level.txt
echo data > %{buildroot}${SITE}/yaml/README
echo spec > %{buildroot}/usr/share/gems/specifications/psych-3.3.2.gemspec

%files
${SITE}/PyYAML-5.4.1-py3.9.egg-info/
${SITE}/yaml/
/usr/share/gems/specifications/psych-3.3.2.gemspec
`,
    });
    packages = await rpmCataloger.parse('/var/lib/rpm/rpmdb.sqlite', fixture.sqlite);
  });
  afterAll(() => fixture?.cleanup());

  it('keeps the ownership keys of the files rpm recorded, not the whole list', () => {
    const pyyaml = packages.find((p) => p.name === 'python3-pyyaml')!;
    expect(pyyaml.ownedPaths?.sort()).toEqual([`${SITE}/PyYAML-5.4.1-py3.9.egg-info`, '/usr/share/gems/specifications/psych-3.3.2.gemspec']);
    // Every package's file list was read, owning or not, and the time it took is counted.
    for (const p of packages) expect(p.ownershipMs).toBeGreaterThanOrEqual(0);
  });

  it('reads pre-4.0 OLDFILENAMES, and joins DIRNAMES[DIRINDEXES[i]] + BASENAMES[i] as rpm does', () => {
    const old = parseRpmHeader(
      buildRpmHeaderBlob([
        { tag: RPMTAG.NAME, type: RpmType.STRING, value: 'PyYAML' },
        { tag: RPMTAG.OLDFILENAMES, type: RpmType.STRING_ARRAY, value: ['/usr/lib/python2.2/site-packages/PyYAML-3.0.egg-info', '/usr/bin/x'] },
      ]),
    );
    expect([...rpmFilePaths(old)]).toEqual(['/usr/lib/python2.2/site-packages/PyYAML-3.0.egg-info', '/usr/bin/x']);
    const split = parseRpmHeader(
      buildRpmHeaderBlob([
        { tag: RPMTAG.NAME, type: RpmType.STRING, value: 'x' },
        { tag: RPMTAG.DIRINDEXES, type: RpmType.INT32, value: [1, 0, 7] },
        { tag: RPMTAG.BASENAMES, type: RpmType.STRING_ARRAY, value: ['a.dist-info', 'python3', 'lost'] },
        { tag: RPMTAG.DIRNAMES, type: RpmType.STRING_ARRAY, value: ['/usr/bin/', '/usr/lib/python3/site-packages/'] },
      ]),
    );
    // An index pointing past DIRNAMES (a damaged header) loses that file, not the others.
    expect([...rpmFilePaths(split)]).toEqual(['/usr/lib/python3/site-packages/a.dist-info', '/usr/bin/python3']);
  });
});

describe('dpkg file lists', () => {
  const status = Buffer.from(
    'Package: python3-yaml\nStatus: install ok installed\nArchitecture: amd64\nSource: pyyaml\nVersion: 5.4.1-1ubuntu1\n\n' +
      'Package: libyaml-0-2\nStatus: install ok installed\nArchitecture: amd64\nSource: libyaml\nVersion: 0.2.2-1build2\n',
  );
  const list = (...paths: string[]) => Buffer.from(`${paths.join('\n')}\n`);

  it('reads <package>.list and <package>:<arch>.list and folds them into the package at finalize', async () => {
    expect(dpkgCataloger.matches('/var/lib/dpkg/info/python3-yaml.list')).toBe(true);
    expect(dpkgCataloger.matches('/var/lib/dpkg/info/libyaml-0-2:amd64.list')).toBe(true);
    expect(dpkgCataloger.matches('/var/lib/dpkg/info/python3-yaml.md5sums')).toBe(false);
    const found = [
      ...(await dpkgCataloger.parse('/var/lib/dpkg/status', status)),
      ...(await dpkgCataloger.parse('/var/lib/dpkg/info/python3-yaml.list', list('/.', '/usr/lib/python3/dist-packages', '/usr/lib/python3/dist-packages/PyYAML-5.4.1.egg-info', '/usr/lib/python3/dist-packages/yaml/__init__.py'))),
      ...(await dpkgCataloger.parse('/var/lib/dpkg/info/libyaml-0-2:amd64.list', list('/usr/lib/x86_64-linux-gnu/libyaml-0.so.2'))),
      // A list of a package that is not installed any more (left behind) owns nothing.
      ...(await dpkgCataloger.parse('/var/lib/dpkg/info/python3-gone.list', list('/usr/lib/python3/dist-packages/gone-1.0.dist-info/METADATA'))),
    ];
    const packages = dpkgCataloger.finalize!(found, { name: 'ubuntu', version: '22.04', like: ['debian'] });
    expect(packages.map((p) => [p.name, p.version, p.ownedPaths ?? [], typeof p.ownershipMs])).toEqual([
      ['python3-yaml', '5.4.1-1ubuntu1', ['/usr/lib/python3/dist-packages/PyYAML-5.4.1.egg-info'], 'number'],
      ['libyaml-0-2', '0.2.2-1build2', [], 'number'],
    ]);
  });
});

describe('assignOwners', () => {
  const pkg = (type: CatalogedPackage['type'], name: string, version: string, location: string, ownedPaths?: string[]): CatalogedPackage => ({
    name,
    version,
    type,
    locations: [location],
    licenses: [],
    purl: '',
    cpes: [],
    metadata: {},
    ...(ownedPaths ? { ownedPaths } : {}),
  });

  it('gives an owned language package its owner, leaves pip-upgraded and unowned ones alone, and drops ownedPaths', () => {
    const { packages: out } = assignOwners([
      pkg('rpm', 'python3-pyyaml', '5.4.1-6.el9', '/var/lib/rpm/rpmdb.sqlite', [`${SITE}/PyYAML-5.4.1-py3.9.egg-info`]),
      pkg('python', 'PyYAML', '5.4.1', `${SITE}/PyYAML-5.4.1-py3.9.egg-info/PKG-INFO`),
      // `pip install -U PyYAML` over the distro's copy: a new dist-info no OS package lists.
      pkg('python', 'PyYAML', '6.0.1', `${SITE}/PyYAML-6.0.1.dist-info/METADATA`),
      pkg('python', 'requests', '2.31.0', '/usr/local/lib/python3.9/site-packages/requests-2.31.0.dist-info/METADATA'),
    ]);
    expect(out.map((p) => p.owner ?? null)).toEqual([null, { type: 'rpm', name: 'python3-pyyaml', version: '5.4.1-6.el9' }, null, null]);
    expect(out.every((p) => p.ownedPaths === undefined)).toBe(true);
  });

  it('reports the time the walk spent on file lists plus its own, and drops the per-package times', () => {
    const timed = { ...pkg('dpkg', 'python3-yaml', '5.4.1-1', '/var/lib/dpkg/status', []), ownershipMs: 2.5 };
    const { packages, ms } = assignOwners([timed, { ...timed, name: 'libyaml-0-2', ownershipMs: 1 }]);
    expect(ms).toBeGreaterThanOrEqual(3.5);
    expect(ms).toBeLessThan(1000);
    expect(packages.every((p) => p.ownershipMs === undefined)).toBe(true);
  });

  it('gives the entries of a lock file an OS package ships that package as owner', () => {
    // As in Debian bookworm: libruby3.1 ships typeprof's VS Code extension with its development lock file.
    const lock = '/usr/lib/ruby/gems/3.1.0/gems/typeprof-0.21.2/vscode/package-lock.json';
    const { packages: out } = assignOwners([
      pkg('dpkg', 'libruby3.1', '3.1.2-7+deb12u1', '/var/lib/dpkg/status', [lock]),
      pkg('npm', 'ansi-regex', '5.0.1', lock),
      pkg('npm', 'ansi-regex', '5.0.1', '/srv/app/package-lock.json'),
    ]);
    expect(out.map((p) => p.owner ?? null)).toEqual([null, { type: 'dpkg', name: 'libruby3.1', version: '3.1.2-7+deb12u1' }, null]);
  });

  it("gives every package of an owned Java archive, nested ones included, the archive's owner", () => {
    const owner = { type: 'dpkg' as const, name: 'jenkins', version: '2.440.3' };
    const { packages: out } = assignOwners([
      pkg('dpkg', 'jenkins', '2.440.3', '/var/lib/dpkg/status', ['/usr/share/java/jenkins.war']),
      pkg('java', 'jenkins-war', '2.440.3', '/usr/share/java/jenkins.war'),
      pkg('java', 'commons-io', '2.15.1', '/usr/share/java/jenkins.war:WEB-INF/lib/commons-io-2.15.1.jar'),
      pkg('java', 'commons-io', '2.15.1', '/opt/other/commons-io-2.15.1.jar'),
    ]);
    expect(out.map((p) => p.owner ?? null)).toEqual([null, owner, owner, null]);
  });
});

describe('syft ownership relationships', () => {
  const artifact = (id: string, name: string, version: string, type: string, path: string) => ({ id, name, version, type, locations: [{ path }], licenses: [], cpes: [], purl: '' });
  const doc = (relationships: unknown[]) => ({
    artifacts: [
      artifact('deb', 'python3-yaml', '5.4.1-1ubuntu1', 'deb', '/var/lib/dpkg/status'),
      artifact('py', 'PyYAML', '5.4.1', 'python', '/usr/lib/python3/dist-packages/PyYAML-5.4.1.egg-info'),
      artifact('npm', 'left-pad', '1.3.0', 'npm', '/usr/lib/node_modules/left-pad/package.json'),
    ],
    artifactRelationships: relationships,
    distro: { id: 'ubuntu', versionID: '22.04' },
    descriptor: { name: 'syft', version: '1.0.0' },
    schema: { version: '16.0.0', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.0.json' },
  });

  it('makes the OS parent the owner of a language child', () => {
    const read = readSbomPackages(doc([{ parent: 'deb', child: 'py', type: 'ownership-by-file-overlap' }]));
    expect(read.packages.map((p) => [p.name, p.owner ?? null])).toEqual([
      ['python3-yaml', null],
      ['PyYAML', { type: 'dpkg', name: 'python3-yaml', version: '5.4.1-1ubuntu1' }],
      ['left-pad', null],
    ]);
  });

  it('ignores other relationship types, language parents, unknown ids and malformed entries', () => {
    const read = readSbomPackages(
      doc([
        { parent: 'deb', child: 'npm', type: 'contains' },
        { parent: 'npm', child: 'py', type: 'ownership-by-file-overlap' },
        { parent: 'nope', child: 'py', type: 'ownership-by-file-overlap' },
        'junk',
        { parent: 1, child: 'py', type: 'ownership-by-file-overlap' },
      ]),
    );
    expect(read.packages.every((p) => p.owner === undefined)).toBe(true);
  });
});

describe('SPDX ownership relationships', () => {
  const pkg = (id: string, name: string, version: string, purl: string, path: string) => ({
    SPDXID: id,
    name,
    versionInfo: version,
    sourceInfo: `acquired package info from some cataloger: ${path}`,
    externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purl }],
  });
  const doc = (relationships: unknown[]) => ({
    spdxVersion: 'SPDX-2.3',
    SPDXID: 'SPDXRef-DOCUMENT',
    packages: [
      pkg('SPDXRef-deb', 'python3-yaml', '5.4.1-1ubuntu1', 'pkg:deb/ubuntu/python3-yaml@5.4.1-1ubuntu1?distro=ubuntu-22.04', '/var/lib/dpkg/status'),
      pkg('SPDXRef-py', 'PyYAML', '5.4.1', 'pkg:pypi/pyyaml@5.4.1', '/usr/lib/python3/dist-packages/PyYAML-5.4.1.egg-info'),
      pkg('SPDXRef-npm', 'left-pad', '1.3.0', 'pkg:npm/left-pad@1.3.0', '/usr/lib/node_modules/left-pad/package.json'),
    ],
    relationships,
  });
  const other = (from: string, to: string, comment?: string) => ({ spdxElementId: from, relationshipType: 'OTHER', relatedSpdxElement: to, ...(comment ? { comment } : {}) });

  it('makes the OS package of an OTHER relationship commented ownership-by-file-overlap the owner', () => {
    const read = readSbomPackages(doc([other('SPDXRef-deb', 'SPDXRef-py', 'ownership-by-file-overlap: indicates ownership')]));
    expect(read.packages.map((p) => p.owner ?? null)).toEqual([null, { type: 'dpkg', name: 'python3-yaml', version: '5.4.1-1ubuntu1' }, null]);
  });

  it('ignores other comments and types, language parents and unknown ids', () => {
    const read = readSbomPackages(
      doc([
        other('SPDXRef-deb', 'SPDXRef-py', 'evident-by: indicates the package is evident by the file'),
        other('SPDXRef-deb', 'SPDXRef-py'),
        { spdxElementId: 'SPDXRef-deb', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-npm', comment: 'ownership-by-file-overlap' },
        other('SPDXRef-npm', 'SPDXRef-py', 'ownership-by-file-overlap'),
        other('SPDXRef-gone', 'SPDXRef-py', 'ownership-by-file-overlap'),
      ]),
    );
    expect(read.packages.every((p) => p.owner === undefined)).toBe(true);
  });
});

describe('CycloneDX nesting as ownership', () => {
  const component = (name: string, version: string, type: string, purl: string, components?: unknown[]) => ({
    type: 'library',
    name,
    version,
    purl,
    properties: [{ name: 'syft:package:type', value: type }],
    ...(components ? { components } : {}),
  });
  const owner = { type: 'rpm', name: 'jenkins', version: '2.440.3-1.1' };
  const bom = (components: unknown[], dependencies: unknown[] = []) => ({ bomFormat: 'CycloneDX', specVersion: '1.6', components, dependencies });
  const war = (nested?: unknown[]) => component('jenkins-war', '2.440.3', 'java-archive', 'pkg:maven/org.jenkins-ci.main/jenkins-war@2.440.3', nested);
  const jar = component('commons-io', '2.15.1', 'java-archive', 'pkg:maven/commons-io/commons-io@2.15.1');

  it('gives a language component nested in an OS component, and what that one nests, the OS package as owner', () => {
    const read = readSbomPackages(bom([component('jenkins', '2.440.3-1.1', 'rpm', 'pkg:rpm/redhat/jenkins@2.440.3-1.1', [war([jar])])]));
    expect(read.packages.map((p) => [p.name, p.owner ?? null])).toEqual([
      ['jenkins', null],
      ['jenkins-war', owner],
      ['commons-io', owner],
    ]);
  });

  it('does not read nesting under a language component, or dependencies, as ownership', () => {
    const read = readSbomPackages(
      bom([component('jenkins', '2.440.3-1.1', 'rpm', 'pkg:rpm/redhat/jenkins@2.440.3-1.1'), war([jar])], [{ ref: 'jenkins', dependsOn: ['jenkins-war'] }]),
    );
    expect(read.packages.every((p) => p.owner === undefined)).toBe(true);
  });
});

describe('matching owned packages', () => {
  const distro = { name: 'rhel', version: '8.9', like: ['fedora'] };
  it('looks an owned language package up nowhere, its owner and unowned copies as before', () => {
    const owner = { type: 'rpm', name: 'python3-urllib3', version: '1.24.2-4.el8' };
    expect(lookupTarget({ type: 'python', name: 'urllib3', version: '1.24.2', owner }, distro)).toBeUndefined();
    expect(lookupTarget({ type: 'python', name: 'urllib3', version: '1.24.2' }, distro)?.ecosystem).toBe('pypi');
    expect(lookupTarget({ type: 'rpm', name: 'python3-urllib3', version: '1.24.2-4.el8' }, distro)?.ecosystem).toBe('red hat');
  });
});
