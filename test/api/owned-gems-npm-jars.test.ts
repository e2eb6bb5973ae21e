/**
 * The ownership rule (images/ownership.ts) for gems, npm modules and Java archives, end to end on real-shaped root
 * filesystems: a copy the OS package manager installed is listed with its owner and matched only through the owner's
 * distro data; a copy installed by the language's own tool (owned by nobody) is still matched against its feed.
 *
 *  - Debian 12: ruby-rack's gemspec in /usr/share/rubygems-integration/all/specifications, node-semver's module in
 *    /usr/share/nodejs/semver (Debian's JavaScript policy), libcommons-text-java's jar in /usr/share/java with the
 *    versioned symlink beside it (shapes checked against a bookworm rootfs built by mmdebstrap), each named by its
 *    /var/lib/dpkg/info/<package>.list; plus a
 *    `gem install`ed rack under /var/lib/gems, an `npm install -g`ed semver under /usr/local/lib/node_modules and an
 *    application's own copy of commons-text under /opt/app/lib.
 *  - RHEL 8: an rpm database written by rpm itself holding apache-commons-lang3, whose file list names
 *    /usr/share/java/apache-commons-lang3.jar; plus an application's commons-lang3 jar under /opt/app/lib.
 *
 * Needs rpm and rpmbuild (Debian: rpm) and gpg (gnupg).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage, imageFindingLines } from '../support/analysis.js';
import { installedGemspec, mavenJar } from '../support/ecosystem-fixtures.js';
import { raw } from '../support/http.js';
import type { FileSpec } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { buildRpmdbFixture, type RpmdbFixture } from '../unit/ecosystems/rpm/testdata/rpmdb.js';
import { osvRecord, writeRecords } from '../vulns/fixture-feed.js';
import { missingTools } from '../support/tools.js';

const DEBIAN_OS_RELEASE =
  'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n';
const RHEL_OS_RELEASE = 'NAME="Red Hat Enterprise Linux"\nVERSION="8.9 (Ootpa)"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="8.9"\nPRETTY_NAME="Red Hat Enterprise Linux 8.9 (Ootpa)"\n';

const stanza = (name: string, source: string, version: string, depends: string, description: string) =>
  `Package: ${name}\nStatus: install ok installed\nPriority: optional\nSection: misc\nInstalled-Size: 400\n` +
  `Maintainer: Debian Maintainers <debian-devel@lists.debian.org>\nArchitecture: all\nMulti-Arch: foreign\n` +
  `Source: ${source}\nVersion: ${version}\nDepends: ${depends}\nDescription: ${description}\n`;

const DEBIAN_STATUS = [
  stanza('ruby-rack', 'ruby-rack', '2.2.6.4-1+deb12u1', 'ruby:any', 'modular Ruby webserver interface'),
  stanza('node-semver', 'node-semver', '7.3.5+~7.3.8-2', 'nodejs:any', 'Semantic Versioning for Node.js'),
  stanza('libcommons-text-java', 'commons-text', '1.10.0-1', 'libcommons-lang3-java', 'Apache Commons Text library'),
].join('\n');

const RACK_SPEC = '/usr/share/rubygems-integration/all/specifications/rack-2.2.6.4.gemspec';
const GEM_INSTALLED_RACK = '/var/lib/gems/3.1.0/specifications/rack-2.2.6.4.gemspec';
const SEMVER_JSON = '/usr/share/nodejs/semver/package.json';
const NPM_INSTALLED_SEMVER = '/usr/local/lib/node_modules/semver/package.json';
const COMMONS_TEXT_JAR = '/usr/share/java/commons-text.jar';
const APP_COMMONS_TEXT = '/opt/app/lib/commons-text-1.10.0.jar';
const LANG3_JAR = '/usr/share/java/apache-commons-lang3.jar';
const APP_LANG3 = '/opt/app/lib/commons-lang3-3.7.jar';

const dpkgList = (...paths: string[]) => `${['/.', '/usr', '/usr/share', ...paths].join('\n')}\n`;

const rackSpec = installedGemspec({
  name: 'rack',
  version: '2.2.6.4',
  licenses: ['MIT'],
  authors: ['Leah Neukirchen'],
  homepage: 'https://github.com/rack/rack',
  summary: 'A modular Ruby webserver interface.',
});
const semverJson = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'semver', version: '7.3.5', description: 'The semantic version parser used by npm.', license: 'ISC', main: 'index.js', ...extra }, null, 2);
const commonsText = mavenJar({ groupId: 'org.apache.commons', artifactId: 'commons-text', version: '1.10.0', manifest: { 'Bundle-SymbolicName': 'org.apache.commons.commons-text' } });
const commonsLang3 = mavenJar({ groupId: 'org.apache.commons', artifactId: 'commons-lang3', version: '3.7', manifest: { 'Bundle-SymbolicName': 'org.apache.commons.lang3' } });

const rel = (path: string) => path.replace(/^\//, '');

function debianLayers(): FileSpec[][] {
  return [
    [
      { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
      { path: 'var/lib/dpkg/status', content: DEBIAN_STATUS },
      {
        path: 'var/lib/dpkg/info/ruby-rack.list',
        content: dpkgList('/usr/bin', '/usr/bin/rackup', '/usr/lib/ruby/vendor_ruby/rack.rb', '/usr/share/rubygems-integration', '/usr/share/rubygems-integration/all', '/usr/share/rubygems-integration/all/specifications', RACK_SPEC),
      },
      { path: 'var/lib/dpkg/info/node-semver.list', content: dpkgList('/usr/share/nodejs', '/usr/share/nodejs/semver', SEMVER_JSON, '/usr/share/nodejs/semver/index.js') },
      {
        path: 'var/lib/dpkg/info/libcommons-text-java.list',
        content: dpkgList(
          '/usr/share/java',
          COMMONS_TEXT_JAR,
          '/usr/share/maven-repo/org/apache/commons/commons-text/1.10.0/commons-text-1.10.0.pom',
          '/usr/share/java/commons-text-1.10.0.jar',
          '/usr/share/maven-repo/org/apache/commons/commons-text/1.10.0/commons-text-1.10.0.jar',
        ),
      },
      { path: rel(RACK_SPEC), content: rackSpec },
      { path: 'usr/lib/ruby/vendor_ruby/rack.rb', content: "module Rack\nend\n" },
      { path: rel(SEMVER_JSON), content: semverJson() },
      { path: 'usr/share/nodejs/semver/index.js', content: 'module.exports = {}\n' },
      { path: rel(COMMONS_TEXT_JAR), content: commonsText },
      // As bookworm ships it: the unversioned jar is the file, the versioned name a symlink to it.
      { path: 'usr/share/java/commons-text-1.10.0.jar', type: 'symlink', linkTarget: 'commons-text.jar' },
    ],
    [
      { path: rel(GEM_INSTALLED_RACK), content: rackSpec },
      // npm 5-6 recorded the install's origin in the installed manifest.
      { path: rel(NPM_INSTALLED_SEMVER), content: semverJson({ _resolved: 'https://registry.npmjs.org/semver/-/semver-7.3.5.tgz' }) },
      { path: rel(APP_COMMONS_TEXT), content: commonsText },
    ],
  ];
}

const APACHE_COMMONS_LANG3_SPEC = `
Name: apache-commons-lang3
Version: 3.7
Release: 3.el8
Summary: Provides a host of helper utilities for the java.lang API
License: ASL 2.0
BuildArch: noarch
AutoReqProv: no

%description
commons-lang3 as the distribution builds it.

%install
mkdir -p %{buildroot}/usr/share/java
touch %{buildroot}${LANG3_JAR}
ln -s apache-commons-lang3.jar %{buildroot}/usr/share/java/commons-lang3.jar

%files
${LANG3_JAR}
/usr/share/java/commons-lang3.jar
`;

const FEED = [
  osvRecord('GHSA-2099-rack-0001', 'RubyGems', 'rack', [{ introduced: '0' }, { fixed: '2.2.8.1' }], { aliases: ['CVE-2099-0101'] }),
  osvRecord('DSA-2099-0101', 'Debian:12', 'ruby-rack', [{ introduced: '0' }, { fixed: '2.2.6.4-1+deb12u2' }], { aliases: ['CVE-2099-0101'] }),
  osvRecord('GHSA-2099-semv-0002', 'npm', 'semver', [{ introduced: '7.0.0' }, { fixed: '7.5.2' }], { aliases: ['CVE-2099-0102'] }),
  osvRecord('DLA-2099-0102', 'Debian:12', 'node-semver', [{ introduced: '0' }, { fixed: '7.3.5+~7.3.8-2+deb12u1' }], { aliases: ['CVE-2099-0102'] }),
  osvRecord('GHSA-2099-text-0003', 'Maven', 'org.apache.commons:commons-text', [{ introduced: '1.5' }, { fixed: '1.10.1' }], { aliases: ['CVE-2099-0103'] }),
  osvRecord('DSA-2099-0103', 'Debian:12', 'commons-text', [{ introduced: '0' }, { fixed: '1.10.0-1+deb12u1' }], { aliases: ['CVE-2099-0103'] }),
  osvRecord('GHSA-2099-lang-0004', 'Maven', 'org.apache.commons:commons-lang3', [{ introduced: '3.0' }, { fixed: '3.18.0' }], { aliases: ['CVE-2099-0104'] }),
  osvRecord('RHSA-2099:0104', 'Red Hat:8', 'apache-commons-lang3', [{ introduced: '0' }, { fixed: '3.7-4.el8' }], { aliases: ['CVE-2099-0104'] }),
];

let server: TestServer;
let work: string;
let rpmdb: RpmdbFixture;
let debianDigest: string;
let rhelDigest: string;



const findings = (digest: string) => imageFindingLines(server, digest);

/**
 * location -> owner (null when unowned) of the packages of one content type: `metadata.ownedBy` in the generic
 * listing, `owned_by` in the Java one (upstream's Java shape has no metadata).
 */
async function owners(digest: string, type: string): Promise<Record<string, unknown>> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/content/${type}`);
  expect(res.status).toBe(200);
  type Item = { location: string; metadata?: Record<string, unknown>; owned_by?: unknown };
  return Object.fromEntries((res.json.content as Item[]).map((p) => [p.location, (type === 'java' ? p.owned_by : p.metadata?.ownedBy) ?? null]));
}

beforeAll(async () => {
  rpmdb = buildRpmdbFixture({ 'apache-commons-lang3': APACHE_COMMONS_LANG3_SPEC });
  work = mkdtempSync(join(tmpdir(), 'vigil-owned-langs-'));
  writeRecords(join(work, 'osv'), Object.fromEntries(FEED.map((r) => [r.id, r])));
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(synced.json.status).toBe('done');
  debianDigest = await analyzeArchiveImage(server, debianLayers(), 'registry.example.com/owned/debian:12');
  rhelDigest = await analyzeArchiveImage(server, 
    [
      [
        { path: 'etc/os-release', content: RHEL_OS_RELEASE },
        { path: 'var/lib/rpm/rpmdb.sqlite', content: rpmdb.sqlite },
        { path: rel(LANG3_JAR), content: commonsLang3 },
        { path: 'usr/share/java/commons-lang3.jar', type: 'symlink', linkTarget: 'apache-commons-lang3.jar' },
      ],
      [{ path: rel(APP_LANG3), content: commonsLang3 }],
    ],
    'registry.example.com/owned/rhel-java:8',
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
  rpmdb?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('gems, npm modules and jars owned by dpkg packages (Debian 12)', () => {
  it('matches the owned copies through their dpkg owners only, the tool-installed copies against their feeds', async () => {
    expect(await findings(debianDigest)).toEqual([
      'DLA-2099-0102 dpkg:node-semver /var/lib/dpkg/status',
      'DSA-2099-0101 dpkg:ruby-rack /var/lib/dpkg/status',
      'DSA-2099-0103 dpkg:libcommons-text-java /var/lib/dpkg/status',
      `GHSA-2099-rack-0001 gem:rack ${GEM_INSTALLED_RACK}`,
      `GHSA-2099-semv-0002 npm:semver ${NPM_INSTALLED_SEMVER}`,
      `GHSA-2099-text-0003 java:commons-text ${APP_COMMONS_TEXT}`,
    ]);
  });

  it('lists every copy, the owned ones with their owner', async () => {
    expect(await owners(debianDigest, 'gem')).toEqual({
      [RACK_SPEC]: { type: 'dpkg', name: 'ruby-rack', version: '2.2.6.4-1+deb12u1' },
      [GEM_INSTALLED_RACK]: null,
    });
    expect(await owners(debianDigest, 'npm')).toEqual({
      [SEMVER_JSON]: { type: 'dpkg', name: 'node-semver', version: '7.3.5+~7.3.8-2' },
      [NPM_INSTALLED_SEMVER]: null,
    });
    expect(await owners(debianDigest, 'java')).toEqual({
      [COMMONS_TEXT_JAR]: { type: 'dpkg', name: 'libcommons-text-java', version: '1.10.0-1' },
      [APP_COMMONS_TEXT]: null,
    });
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('jars owned by an rpm package (RHEL 8)', () => {
  it('matches the rpm-owned jar through apache-commons-lang3 only, the application copy against Maven', async () => {
    expect(await findings(rhelDigest)).toEqual([
      `GHSA-2099-lang-0004 java:commons-lang3 ${APP_LANG3}`,
      'RHSA-2099:0104 rpm:apache-commons-lang3 /var/lib/rpm/rpmdb.sqlite',
    ]);
    expect(await owners(rhelDigest, 'java')).toEqual({
      [LANG3_JAR]: { type: 'rpm', name: 'apache-commons-lang3', version: '3.7-3.el8' },
      [APP_LANG3]: null,
    });
  });
});
