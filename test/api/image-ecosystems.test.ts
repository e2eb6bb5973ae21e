/**
 * One image with content for every ecosystem Vigil catalogs, end to end through the API: built in memory, pushed to a
 * real registry, added by tag, analyzed by the worker; then the same image uploaded as a `docker save` archive.
 *
 * Layers (what a Dockerfile of a Debian-based app image would produce):
 *  1. base: Debian 12 (/etc/os-release -> ../usr/lib/os-release), dpkg status (with a removed package left in
 *     config-files state) and distroless-style status.d entries with their .md5sums;
 *  2. runtimes: an rpm database written by rpm itself, Python dist-info and egg-info (directory and single-file
 *     forms) in /usr/lib/python3/dist-packages, Ruby gemspecs (including a default gem and a platform gem);
 *  3. app: /app with node_modules (scoped, nested, npm's hidden lockfile) and package-lock.json v3, a war with
 *     jars in WEB-INF/lib at /opt/app, a Go binary built here at /usr/local/bin, and a Rust service's Cargo.lock,
 *     an ASP.NET app's deps.json and a PHP app's composer.lock under /srv;
 *  4. changes: `npm uninstall left-pad` (a whiteout of its directory and a rewritten lock file) and
 *     `pip install -U requests` (a whiteout of the old dist-info and the new one), so the final view must win.
 *
 * Why the rpm database lives in the Debian image: distro detection reads os-release only, so one rpmdb beside it
 * does not make the distro ambiguous (Debian's own `rpm` package can create one). The rpm packages then carry the
 * detected distro in their purl (`pkg:rpm/debian/...&distro=debian-12`), which is exactly the rule OS catalogers
 * follow (and what syft does). One image keeps the archive round-trip a check of every ecosystem at once.
 *
 * Needs the Go toolchain (Debian: golang-go), rpm and rpmbuild (rpm) and gpg (gnupg), and docker-registry.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogedPackage } from '../../src/ecosystems/model.js';
import { waitForAnalysis } from '../support/analysis.js';
import {
  DEBIAN_OS_RELEASE,
  DPKG_STATUS,
  RPM_SPECS,
  STATUS_D_LIBSSL3,
  STATUS_D_TZDATA,
  buildGoBinary,
  finalPaths,
  installedGemspec,
  mavenJar,
  mavenWar,
  pkgInfo,
  requestsMetadata,
  wheelMetadata,
  type GoBinaryFixture,
} from '../support/ecosystem-fixtures.js';
import { client, json, raw } from '../support/http.js';
import { CARGO_LOCK, COMPOSER_LOCK, aspNetDepsJson } from '../support/language-fixtures.js';
import { buildImage, dockerArchiveTar, type BuiltImage, type FileSpec } from '../support/image-builder.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { buildRpmdbFixture, type RpmdbFixture } from '../unit/ecosystems/rpm/testdata/rpmdb.js';
import { missingTools } from '../support/tools.js';

const REPO = 'team/ecosystems';
const ARCHIVE_TAG = 'archive.example/team/ecosystems:from-docker-save';
const DIST_PACKAGES = 'usr/lib/python3/dist-packages';
const GEM_SPECS = 'usr/lib/ruby/gems/3.1.0/specifications';
const GO_BINARY_PATH = '/usr/local/bin/vigil-agent';
const WAR_PATH = '/opt/app/webapp.war';
const CARGO_LOCK_PATH = '/srv/api/Cargo.lock';
const DEPS_JSON_PATH = '/srv/web/WebShop.deps.json';
const COMPOSER_LOCK_PATH = '/srv/php/composer.lock';

let server: TestServer | undefined;
let registry: TestRegistry | undefined;
let go: GoBinaryFixture | undefined;
let rpmdb: RpmdbFixture | undefined;
let layers: FileSpec[][];
let image: BuiltImage;

// ---------------------------------------------------------------------------------------------------------------
// The image

const dir = (path: string): FileSpec => ({ path: `${path}/`, type: 'dir' });
const text = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const integrity = (id: string): string => `sha512-${createHash('sha512').update(id).digest('base64')}`;

function npmManifest(name: string, version: string, extra: Record<string, unknown> = {}): string {
  return text({ name, version, description: `${name} test fixture`, license: 'MIT', main: 'index.js', ...extra });
}

function lockEntry(name: string, version: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const bare = name.slice(name.lastIndexOf('/') + 1);
  return { version, resolved: `https://registry.npmjs.org/${name}/-/${bare}-${version}.tgz`, integrity: integrity(`${name}@${version}`), license: 'MIT', ...extra };
}

/** package-lock.json v3 as npm 9 writes it; `withLeftPad` is the state before `npm uninstall left-pad`. */
function packageLock(withLeftPad: boolean): string {
  const dependencies: Record<string, string> = { debug: '^4.3.4', express: '^4.18.2', ...(withLeftPad ? { 'left-pad': '^1.3.0' } : {}) };
  return text({
    name: 'shop-frontend',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'shop-frontend', version: '1.0.0', license: 'UNLICENSED', dependencies, devDependencies: { '@types/node': '^20.11.5' } },
      'node_modules/@types/node': lockEntry('@types/node', '20.11.5', { dev: true }),
      'node_modules/debug': lockEntry('debug', '4.3.4', { engines: { node: '>=6.0' } }),
      'node_modules/express': lockEntry('express', '4.18.2', { dependencies: { debug: '2.6.9' }, engines: { node: '>= 0.10.0' } }),
      'node_modules/express/node_modules/debug': lockEntry('debug', '2.6.9'),
      ...(withLeftPad ? { 'node_modules/left-pad': lockEntry('left-pad', '1.3.0', { license: 'WTFPL', deprecated: 'use String.prototype.padStart()' }) } : {}),
    },
  });
}

function distInfo(name: string, version: string, metadata: string): FileSpec[] {
  const base = `${DIST_PACKAGES}/${name}-${version}.dist-info`;
  return [
    dir(base),
    { path: `${base}/METADATA`, content: metadata },
    { path: `${base}/WHEEL`, content: 'Wheel-Version: 1.0\nGenerator: bdist_wheel (0.37.1)\nRoot-Is-Purelib: true\nTag: py3-none-any\n' },
    { path: `${base}/INSTALLER`, content: 'pip\n' },
    { path: `${base}/top_level.txt`, content: `${name}\n` },
    { path: `${base}/RECORD`, content: `${name}/__init__.py,,\n${name}-${version}.dist-info/METADATA,,\n` },
  ];
}

function buildLayers(goBinary: Buffer, rpmSqlite: Buffer): FileSpec[][] {
  const base: FileSpec[] = [
    dir('etc'),
    { path: 'etc/os-release', type: 'symlink', linkTarget: '../usr/lib/os-release' },
    { path: 'etc/debian_version', content: '12.5\n' },
    dir('usr'),
    dir('usr/lib'),
    { path: 'usr/lib/os-release', content: DEBIAN_OS_RELEASE },
    dir('var'),
    dir('var/lib'),
    dir('var/lib/dpkg'),
    { path: 'var/lib/dpkg/status', content: DPKG_STATUS },
    dir('var/lib/dpkg/status.d'),
    { path: 'var/lib/dpkg/status.d/libssl3', content: STATUS_D_LIBSSL3 },
    { path: 'var/lib/dpkg/status.d/libssl3.md5sums', content: 'd41d8cd98f00b204e9800998ecf8427e  usr/lib/x86_64-linux-gnu/libssl.so.3\n' },
    { path: 'var/lib/dpkg/status.d/tzdata', content: STATUS_D_TZDATA },
    { path: 'var/lib/dpkg/status.d/tzdata.md5sums', content: 'd41d8cd98f00b204e9800998ecf8427e  usr/share/zoneinfo/UTC\n' },
  ];

  const runtimes: FileSpec[] = [
    dir('var/lib/rpm'),
    { path: 'var/lib/rpm/rpmdb.sqlite', content: rpmSqlite },
    dir('usr/lib/python3'),
    dir(DIST_PACKAGES),
    ...distInfo('requests', '2.28.1', requestsMetadata('2.28.1')),
    { path: `${DIST_PACKAGES}/requests/__init__.py`, content: '__version__ = "2.28.1"\n' },
    ...distInfo(
      'certifi',
      '2022.9.24',
      wheelMetadata({
        name: 'certifi',
        version: '2022.9.24',
        summary: 'Python package for providing Mozilla\'s CA Bundle.',
        license: 'MPL-2.0',
        classifiers: ['License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)'],
      }),
    ),
    dir(`${DIST_PACKAGES}/PyYAML-6.0.egg-info`),
    {
      path: `${DIST_PACKAGES}/PyYAML-6.0.egg-info/PKG-INFO`,
      content: pkgInfo({ name: 'PyYAML', version: '6.0', summary: 'YAML parser and emitter for Python', license: 'MIT', classifiers: ['License :: OSI Approved :: MIT License'] }),
    },
    { path: `${DIST_PACKAGES}/PyYAML-6.0.egg-info/top_level.txt`, content: '_yaml\nyaml\n' },
    { path: `${DIST_PACKAGES}/yaml/__init__.py`, content: '__version__ = "6.0"\n' },
    {
      path: `${DIST_PACKAGES}/six-1.16.0.egg-info`,
      content: pkgInfo({ name: 'six', version: '1.16.0', summary: 'Python 2 and 3 compatibility utilities', license: 'MIT', classifiers: ['License :: OSI Approved :: MIT License'] }),
    },
    { path: `${DIST_PACKAGES}/six.py`, content: '__version__ = "1.16.0"\n' },
    dir('usr/lib/ruby'),
    dir('usr/lib/ruby/gems'),
    dir('usr/lib/ruby/gems/3.1.0'),
    dir(GEM_SPECS),
    {
      path: `${GEM_SPECS}/rake-13.0.6.gemspec`,
      content: installedGemspec({
        name: 'rake',
        version: '13.0.6',
        licenses: ['MIT'],
        authors: ['Hiroshi SHIBATA', 'Eric Hodel', 'Jim Weirich'],
        homepage: 'https://github.com/ruby/rake',
        summary: 'Rake is a Make-like program implemented in Ruby',
      }),
    },
    {
      path: `${GEM_SPECS}/nokogiri-1.13.8-x86_64-linux.gemspec`,
      content: installedGemspec({
        name: 'nokogiri',
        version: '1.13.8',
        platform: 'x86_64-linux',
        licenses: ['MIT'],
        authors: ['Mike Dalessio', 'Aaron Patterson'],
        homepage: 'https://nokogiri.org',
        summary: 'Nokogiri (鋸) makes it easy and painless to work with XML and HTML from Ruby.',
      }),
    },
    dir(`${GEM_SPECS}/default`),
    {
      path: `${GEM_SPECS}/default/json-2.6.1.gemspec`,
      content: installedGemspec({
        name: 'json',
        version: '2.6.1',
        licenses: ['Ruby'],
        authors: ['Florian Frank'],
        homepage: 'http://flori.github.com/json',
        summary: 'JSON Implementation for Ruby',
      }),
    },
    dir('usr/lib/ruby/gems/3.1.0/gems/rake-13.0.6/exe'),
    { path: 'usr/lib/ruby/gems/3.1.0/gems/rake-13.0.6/exe/rake', content: '#!/usr/bin/env ruby\nrequire "rake"\n', mode: 0o755 },
  ];

  const war = mavenWar(
    {
      groupId: 'com.example.shop',
      artifactId: 'webapp',
      version: '1.4.2',
      manifest: { 'Created-By': 'Maven WAR Plugin 3.3.2', 'Build-Jdk-Spec': '17', 'Implementation-Title': 'webapp', 'Implementation-Version': '1.4.2' },
    },
    {
      'commons-lang3-3.12.0.jar': mavenJar({
        groupId: 'org.apache.commons',
        artifactId: 'commons-lang3',
        version: '3.12.0',
        manifest: {
          'Created-By': 'Apache Maven Bundle Plugin',
          'Automatic-Module-Name': 'org.apache.commons.lang3',
          'Bundle-License': 'https://www.apache.org/licenses/LICENSE-2.0.txt',
          'Bundle-SymbolicName': 'org.apache.commons.lang3',
          'Bundle-Version': '3.12.0',
          'Implementation-Title': 'Apache Commons Lang',
          'Implementation-Vendor-Id': 'org.apache.commons',
          'Implementation-Version': '3.12.0',
          'Specification-Title': 'Apache Commons Lang',
          'Specification-Version': '3.12',
        },
      }),
      'slf4j-api-2.0.9.jar': mavenJar({
        groupId: 'org.slf4j',
        artifactId: 'slf4j-api',
        version: '2.0.9',
        manifest: {
          'Bundle-License': 'http://www.opensource.org/licenses/mit-license.php',
          'Bundle-SymbolicName': 'slf4j.api',
          'Bundle-Version': '2.0.9',
          'Implementation-Title': 'slf4j-api',
          'Implementation-Version': '2.0.9',
        },
      }),
    },
  );

  const app: FileSpec[] = [
    dir('app'),
    { path: 'app/package.json', content: text({ name: 'shop-frontend', version: '1.0.0', private: true, dependencies: { debug: '^4.3.4', express: '^4.18.2', 'left-pad': '^1.3.0' } }) },
    { path: 'app/package-lock.json', content: packageLock(true) },
    { path: 'app/server.js', content: 'require("express")().listen(8080);\n' },
    dir('app/node_modules'),
    { path: 'app/node_modules/.package-lock.json', content: packageLock(true) },
    dir('app/node_modules/express'),
    { path: 'app/node_modules/express/package.json', content: npmManifest('express', '4.18.2', { dependencies: { debug: '2.6.9' } }) },
    { path: 'app/node_modules/express/index.js', content: 'module.exports = require("./lib/express");\n' },
    dir('app/node_modules/express/node_modules/debug'),
    { path: 'app/node_modules/express/node_modules/debug/package.json', content: npmManifest('debug', '2.6.9') },
    { path: 'app/node_modules/express/node_modules/debug/src/index.js', content: 'module.exports = {};\n' },
    dir('app/node_modules/debug'),
    { path: 'app/node_modules/debug/package.json', content: npmManifest('debug', '4.3.4') },
    dir('app/node_modules/@types/node'),
    { path: 'app/node_modules/@types/node/package.json', content: npmManifest('@types/node', '20.11.5', { types: 'index.d.ts' }) },
    { path: 'app/node_modules/@types/node/index.d.ts', content: 'export {};\n' },
    dir('app/node_modules/left-pad'),
    { path: 'app/node_modules/left-pad/package.json', content: npmManifest('left-pad', '1.3.0', { license: 'WTFPL' }) },
    { path: 'app/node_modules/left-pad/index.js', content: 'module.exports = leftPad;\n' },
    dir('opt/app'),
    { path: WAR_PATH.slice(1), content: war },
    dir('usr/local/bin'),
    { path: GO_BINARY_PATH.slice(1), content: goBinary, mode: 0o755 },
    dir('srv'),
    { path: CARGO_LOCK_PATH.slice(1), content: CARGO_LOCK },
    { path: DEPS_JSON_PATH.slice(1), content: aspNetDepsJson() },
    { path: COMPOSER_LOCK_PATH.slice(1), content: COMPOSER_LOCK },
  ];

  const changes: FileSpec[] = [
    dir('app'),
    { path: 'app/package-lock.json', content: packageLock(false) },
    dir('app/node_modules'),
    { path: 'app/node_modules/.package-lock.json', content: packageLock(false) },
    { path: 'app/node_modules/.wh.left-pad', content: '' },
    dir(DIST_PACKAGES),
    { path: `${DIST_PACKAGES}/.wh.requests-2.28.1.dist-info`, content: '' },
    ...distInfo('requests', '2.31.0', requestsMetadata('2.31.0')),
    { path: `${DIST_PACKAGES}/requests/__init__.py`, content: '__version__ = "2.31.0"\n' },
  ];

  return [base, runtimes, app, changes];
}

// ---------------------------------------------------------------------------------------------------------------
// What the API must report

interface Expected {
  package: string;
  version: string;
  type: CatalogedPackage['type'];
  purl: string;
  location: string;
  licenses: string[];
  origin?: string;
  size?: string;
}

const DEB = '?arch=amd64&distro=debian-12';

const EXPECTED_DPKG: Expected[] = [
  { package: 'base-files', version: '12.4+deb12u5', purl: `pkg:deb/debian/base-files@12.4+deb12u5${DEB}`, location: '/var/lib/dpkg/status', size: 341 },
  { package: 'libblkid1', version: '2.38.1-5+b1', purl: `pkg:deb/debian/libblkid1@2.38.1-5+b1${DEB}`, location: '/var/lib/dpkg/status', origin: 'util-linux', size: 433 },
  { package: 'libc6', version: '2.36-9+deb12u4', purl: `pkg:deb/debian/libc6@2.36-9+deb12u4${DEB}`, location: '/var/lib/dpkg/status', origin: 'glibc', size: 12000 },
  { package: 'libssl3', version: '3.0.11-1~deb12u2', purl: `pkg:deb/debian/libssl3@3.0.11-1~deb12u2${DEB}`, location: '/var/lib/dpkg/status.d/libssl3', origin: 'openssl', size: 6292 },
  { package: 'tzdata', version: '2024a-0+deb12u1', purl: 'pkg:deb/debian/tzdata@2024a-0+deb12u1?arch=all&distro=debian-12', location: '/var/lib/dpkg/status.d/tzdata', size: 3010 },
  { package: 'zlib1g', version: '1:1.2.13.dfsg-1', purl: `pkg:deb/debian/zlib1g@1:1.2.13.dfsg-1${DEB}`, location: '/var/lib/dpkg/status', origin: 'zlib', size: 160 },
].map(({ size, ...p }) => ({ ...p, type: 'dpkg' as const, licenses: [], size: String(size * 1024) }));

/** The rpm packages, with arch and size as `rpm -qp` reports them for the packages rpmbuild wrote. */
function expectedRpm(fixture: RpmdbFixture): Expected[] {
  const query = (name: string) => {
    const q = fixture.packages.find((p) => p.NAME === name);
    if (!q) throw new Error(`rpmbuild did not produce ${name}`);
    return q;
  };
  const hello = query('vigil-hello');
  const tools = query('vigil-tools');
  const libs = query('vigil-libs');
  const location = '/var/lib/rpm/rpmdb.sqlite';
  return [
    {
      package: 'vigil-hello',
      version: '2:1.2.3-4.el9',
      type: 'rpm',
      purl: 'pkg:rpm/debian/vigil-hello@1.2.3-4.el9?arch=noarch&distro=debian-12&epoch=2',
      location,
      origin: 'vigil-hello',
      licenses: ['MIT AND Apache-2.0'],
      size: hello.SIZE,
    },
    {
      package: 'vigil-libs',
      version: '0.9.1-1.el9',
      type: 'rpm',
      purl: `pkg:rpm/debian/vigil-libs@0.9.1-1.el9?arch=${libs.ARCH}&distro=debian-12`,
      location,
      origin: 'vigil-tools',
      licenses: ['LGPL-2.1-only'],
      size: libs.SIZE,
    },
    {
      package: 'vigil-tools',
      version: '0.9.1-1.el9',
      type: 'rpm',
      purl: `pkg:rpm/debian/vigil-tools@0.9.1-1.el9?arch=${tools.ARCH}&distro=debian-12`,
      location,
      origin: 'vigil-tools',
      licenses: ['GPL-2.0-or-later'],
      size: tools.SIZE,
    },
  ];
}

/** Every installed package once, from its node_modules manifest (the lock file's entries fold into these). */
const EXPECTED_NPM: Expected[] = [
  { package: '@types/node', version: '20.11.5', purl: 'pkg:npm/%40types/node@20.11.5', dir: 'node_modules/@types/node' },
  { package: 'debug', version: '2.6.9', purl: 'pkg:npm/debug@2.6.9', dir: 'node_modules/express/node_modules/debug' },
  { package: 'debug', version: '4.3.4', purl: 'pkg:npm/debug@4.3.4', dir: 'node_modules/debug' },
  { package: 'express', version: '4.18.2', purl: 'pkg:npm/express@4.18.2', dir: 'node_modules/express' },
].map(({ dir: installDir, ...p }) => ({ ...p, type: 'npm' as const, licenses: ['MIT'], location: `/app/${installDir}/package.json` }));

const EXPECTED_PYTHON: Expected[] = [
  { package: 'PyYAML', version: '6.0', purl: 'pkg:pypi/pyyaml@6.0', location: `/${DIST_PACKAGES}/PyYAML-6.0.egg-info/PKG-INFO`, licenses: ['MIT'] },
  { package: 'certifi', version: '2022.9.24', purl: 'pkg:pypi/certifi@2022.9.24', location: `/${DIST_PACKAGES}/certifi-2022.9.24.dist-info/METADATA`, licenses: ['MPL-2.0'] },
  { package: 'requests', version: '2.31.0', purl: 'pkg:pypi/requests@2.31.0', location: `/${DIST_PACKAGES}/requests-2.31.0.dist-info/METADATA`, licenses: ['Apache-2.0'] },
  { package: 'six', version: '1.16.0', purl: 'pkg:pypi/six@1.16.0', location: `/${DIST_PACKAGES}/six-1.16.0.egg-info`, licenses: ['MIT'] },
].map((p) => ({ ...p, type: 'python' as const }));

const EXPECTED_GEM: Expected[] = [
  { package: 'json', version: '2.6.1', purl: 'pkg:gem/json@2.6.1', location: `/${GEM_SPECS}/default/json-2.6.1.gemspec`, licenses: ['Ruby'] },
  {
    package: 'nokogiri',
    version: '1.13.8',
    purl: 'pkg:gem/nokogiri@1.13.8?platform=x86_64-linux',
    location: `/${GEM_SPECS}/nokogiri-1.13.8-x86_64-linux.gemspec`,
    licenses: ['MIT'],
  },
  { package: 'rake', version: '13.0.6', purl: 'pkg:gem/rake@13.0.6', location: `/${GEM_SPECS}/rake-13.0.6.gemspec`, licenses: ['MIT'] },
].map((p) => ({ ...p, type: 'gem' as const }));

const EXPECTED_JAVA = [
  {
    package: 'commons-lang3',
    version: '3.12.0',
    'implementation-version': '3.12.0',
    'specification-version': '3.12',
    'maven-version': '3.12.0',
    type: 'java',
    origin: 'org.apache.commons',
    purl: 'pkg:maven/org.apache.commons/commons-lang3@3.12.0',
    location: `${WAR_PATH}:WEB-INF/lib/commons-lang3-3.12.0.jar`,
    licenses: ['Apache-2.0'],
  },
  {
    package: 'slf4j-api',
    version: '2.0.9',
    'implementation-version': '2.0.9',
    'maven-version': '2.0.9',
    type: 'java',
    origin: 'org.slf4j',
    purl: 'pkg:maven/org.slf4j/slf4j-api@2.0.9',
    location: `${WAR_PATH}:WEB-INF/lib/slf4j-api-2.0.9.jar`,
    licenses: ['MIT'],
  },
  {
    package: 'webapp',
    version: '1.4.2',
    'implementation-version': '1.4.2',
    'maven-version': '1.4.2',
    type: 'java',
    origin: 'com.example.shop',
    purl: 'pkg:maven/com.example.shop/webapp@1.4.2',
    location: WAR_PATH,
    licenses: [],
  },
];

function expectedGo(fixture: GoBinaryFixture): Expected[] {
  const stdlib = fixture.goVersion.replace(/^go/, '');
  const dep = fixture.dependency;
  return [
    { package: fixture.mainModule, version: '(devel)', purl: `pkg:golang/${fixture.mainModule}`, origin: fixture.mainModule, licenses: [] },
    { package: dep.path, version: dep.version, purl: `pkg:golang/${dep.path}@${dep.version}`, origin: dep.path, licenses: [] },
    { package: 'stdlib', version: stdlib, purl: `pkg:golang/stdlib@${stdlib}`, licenses: ['BSD-3-Clause'] },
  ].map((p) => ({ ...p, type: 'go' as const, location: GO_BINARY_PATH }));
}

/** Third-party crates, NuGet packages and Composer packages (dev ones too) of the lock files and deps.json. */
const EXPECTED_LANGUAGES: Expected[] = [
  ...['bytes@1.5.0', 'hyper@0.14.10', 'smallvec@1.11.2', 'tokio@1.35.1'].map((id) => ({ id, type: 'rust' as const, purl: `pkg:cargo/${id}`, location: CARGO_LOCK_PATH, licenses: [] })),
  ...['Microsoft.Data.SqlClient@5.1.1', 'Microsoft.Identity.Client@4.47.2', 'Newtonsoft.Json@13.0.1', 'System.Text.Encodings.Web@4.7.1'].map((id) => ({
    id,
    type: 'nuget' as const,
    purl: `pkg:nuget/${id}`,
    location: DEPS_JSON_PATH,
    licenses: [],
  })),
  ...['guzzlehttp/psr7@2.4.1', 'monolog/monolog@3.5.0', 'phpunit/phpunit@10.5.1', 'symfony/http-foundation@v6.4.0'].map((id) => ({
    id,
    type: 'composer' as const,
    purl: `pkg:composer/${id}`,
    location: COMPOSER_LOCK_PATH,
    licenses: [id.startsWith('phpunit') ? 'BSD-3-Clause' : 'MIT'],
  })),
].map(({ id, ...p }) => ({ package: id.slice(0, id.lastIndexOf('@')), version: id.slice(id.lastIndexOf('@') + 1), ...p }));

const expectedOf = (type: Expected['type']) => EXPECTED_LANGUAGES.filter((p) => p.type === type);

// ---------------------------------------------------------------------------------------------------------------
// Reading the API

type PackageType = 'os' | 'npm' | 'gem' | 'python' | 'go' | 'rust' | 'nuget' | 'composer';
const LANGUAGE_TYPES = ['rust', 'nuget', 'composer'] as const;

const sortKey = (p: { package: string; version: string; location: string }) => `${p.package}\u0000${p.version}\u0000${p.location}`;
const sorted = <T extends { package: string; version: string; location: string }>(items: T[]): T[] =>
  [...items].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));

async function contentOf(digest: string, contentType: PackageType) {
  const res = await client(server!.url).GET('/images/{image_digest}/content/{content_type}', {
    params: { path: { image_digest: digest, content_type: contentType } },
  });
  expect(res.response.status).toBe(200);
  expect(res.data?.content_type).toBe(contentType);
  return sorted(res.data?.content ?? []);
}

/** The fields this test pins down, with `size` only where the package database records one. */
async function packagesOf(digest: string, contentType: PackageType): Promise<Expected[]> {
  return (await contentOf(digest, contentType)).map((p) => ({
    package: p.package,
    version: p.version,
    type: p.type as Expected['type'],
    purl: p.purl,
    location: p.location,
    licenses: p.licenses,
    ...(p.origin !== undefined ? { origin: p.origin } : {}),
    ...(p.size !== undefined ? { size: p.size } : {}),
  }));
}

async function javaOf(digest: string) {
  const res = await client(server!.url).GET('/images/{image_digest}/content/java', { params: { path: { image_digest: digest } } });
  expect(res.response.status).toBe(200);
  return sorted(res.data?.content ?? []);
}

async function filesOf(digest: string) {
  const res = await client(server!.url).GET('/images/{image_digest}/content/files', { params: { path: { image_digest: digest } } });
  expect(res.response.status).toBe(200);
  return res.data?.content ?? [];
}

async function summaryOf(digest: string): Promise<Record<string, number>> {
  const res = await client(server!.url).GET('/images/{image_digest}/content-summary', { params: { path: { image_digest: digest } } });
  expect(res.response.status).toBe(200);
  return Object.fromEntries((res.data?.items ?? []).map((i) => [i.content_type, i.count]));
}

const sortExpected = (items: Expected[]): Expected[] => sorted(items);

// ---------------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  // The fixtures first: a missing tool fails here, with the package to install, before anything is started.
  go = buildGoBinary();
  rpmdb = buildRpmdbFixture(RPM_SPECS);
  [server, registry] = await Promise.all([startTestServer(), startRegistry()]);
  layers = buildLayers(go.binary, rpmdb.sqlite);
  image = await buildImage({
    layers,
    runtime: { Cmd: [GO_BINARY_PATH], WorkingDir: '/app', Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'NODE_ENV=production'] },
  });
  await pushImage(registry.url, REPO, 'all', image);
}, 180_000);

afterAll(async () => {
  go?.cleanup();
  rpmdb?.cleanup();
  await Promise.all([server?.close(), registry?.close()]);
});

describe.skipIf(missingTools('docker-registry', 'go', 'rpm', 'rpmbuild', 'gpg'))('an image holding every ecosystem, added by tag from a registry', () => {
  let digest: string;

  it('is added by tag and analyzed: Debian 12 from /usr/lib/os-release, amd64, four layers', async () => {
    const pullString = `${registry!.host}/${REPO}:all`;
    const res = await json(server!.url, 'POST', '/v2/images', { source: { tag: { pull_string: pullString } } });
    expect(res.status).toBe(200);
    digest = res.json.image_digest;
    expect(digest).toBe(image.manifestDigest);
    expect(await waitForAnalysis(server!, 'admin', digest)).toBe('analyzed');
    const { data } = await client(server!.url).GET('/images/{image_digest}', { params: { path: { image_digest: digest } } });
    expect(data?.analysis_status).toBe('analyzed');
    expect(data?.image_id).toBe(image.configDigest);
    expect(data?.image_content?.metadata).toMatchObject({ distro: 'debian', distro_version: '12', arch: 'amd64', layer_count: 4 });
    const types = await client(server!.url).GET('/images/{image_digest}/content', { params: { path: { image_digest: digest } } });
    expect([...(types.data ?? [])].sort()).toEqual(['composer', 'files', 'gem', 'go', 'java', 'npm', 'nuget', 'os', 'python', 'rust']);
  });

  it('os: dpkg status and distroless status.d (not their .md5sums, not removed packages) and the rpm database, with source packages as origin', async () => {
    expect(await packagesOf(digest, 'os')).toEqual(sortExpected([...EXPECTED_DPKG, ...expectedRpm(rpmdb!)]));
  });

  it('npm: scoped, nested and top-level installs plus the lock file; the whited-out package is gone from both', async () => {
    const npm = await packagesOf(digest, 'npm');
    expect(npm).toEqual(sortExpected(EXPECTED_NPM));
    expect(npm.filter((p) => p.package === 'left-pad')).toEqual([]);
  });

  it('python: dist-info, egg-info directory and single-file egg-info; the upgraded package shows only its new version', async () => {
    const python = await packagesOf(digest, 'python');
    expect(python).toEqual(sortExpected(EXPECTED_PYTHON));
    expect(python.filter((p) => p.package === 'requests').map((p) => p.version)).toEqual(['2.31.0']);
  });

  it('gem: installed, default and platform gem specifications', async () => {
    expect(await packagesOf(digest, 'gem')).toEqual(sortExpected(EXPECTED_GEM));
  });

  it('java: the war and the jars in its WEB-INF/lib, with Maven groups as origin and Bundle-License URLs as SPDX ids', async () => {
    const java = await javaOf(digest);
    expect(java.map(({ cpes: _cpes, ...p }) => p)).toEqual(sorted(EXPECTED_JAVA));
  });

  it('go: the main module, its dependency and stdlib, from the binary built with the Go toolchain', async () => {
    expect(await packagesOf(digest, 'go')).toEqual(sortExpected(expectedGo(go!)));
    const modules = await contentOf(digest, 'go');
    const dependency = modules.find((p) => p.package === go!.dependency.path);
    expect(dependency?.cpes).toEqual([`cpe:2.3:a:vigil-test:greeting:1.2.3:*:*:*:*:*:*:*`]);
    expect(dependency?.metadata?.['h1Digest']).toMatch(/^h1:[A-Za-z0-9+/]{43}=$/);
    for (const m of modules) expect(m.metadata).toMatchObject({ goVersion: go!.goVersion, mainModule: go!.mainModule, architecture: 'amd64' });
  });

  it('rust, nuget, composer: the crates of a Cargo.lock, the packages of a deps.json and of a composer.lock', async () => {
    for (const type of LANGUAGE_TYPES) expect(await packagesOf(digest, type), type).toEqual(sortExpected(expectedOf(type)));
  });

  it('files: exactly the final view of the layers; the Go binary with the sha256 of what was built', async () => {
    const files = await filesOf(digest);
    const names = files.map((f) => f.filename);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...finalPaths(layers)].sort());
    const byName = new Map(files.map((f) => [f.filename, f]));
    expect(byName.get(GO_BINARY_PATH)).toMatchObject({ type: 'file', size: go!.binary.length, sha256: go!.sha256 });
    expect(byName.get('/etc/os-release')).toMatchObject({ type: 'symlink', linkdest: '../usr/lib/os-release' });
    for (const gone of ['/app/node_modules/left-pad', '/app/node_modules/left-pad/package.json', `/${DIST_PACKAGES}/requests-2.28.1.dist-info/METADATA`])
      expect(byName.has(gone), gone).toBe(false);
    expect(names.filter((n) => n.includes('.wh.'))).toEqual([]);
    const lock = byName.get('/app/package-lock.json');
    expect(lock?.sha256).toBe(createHash('sha256').update(packageLock(false)).digest('hex'));
  });

  it('content summary: the counts match the packages and files listed', async () => {
    expect(await summaryOf(digest)).toEqual({
      os: EXPECTED_DPKG.length + 3,
      npm: EXPECTED_NPM.length,
      python: EXPECTED_PYTHON.length,
      gem: EXPECTED_GEM.length,
      java: EXPECTED_JAVA.length,
      go: 3,
      rust: expectedOf('rust').length,
      nuget: expectedOf('nuget').length,
      composer: expectedOf('composer').length,
      files: finalPaths(layers).size,
    });
  });

  describe('the same image uploaded as a docker save archive under another tag', () => {
    let archived: string;

    it('is analyzed as the same image (same image id), under its own digest', async () => {
      const tar = await dockerArchiveTar(image, { repoTags: [ARCHIVE_TAG] });
      const res = await raw(server!.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: tar });
      expect(res.status).toBe(200);
      archived = res.json.image_digest;
      expect(res.json.image_detail).toEqual([expect.objectContaining({ full_tag: ARCHIVE_TAG, registry: 'archive.example', repo: REPO, tag: 'from-docker-save' })]);
      expect(await waitForAnalysis(server!, 'admin', archived)).toBe('analyzed');
      const { data } = await client(server!.url).GET('/images/{image_digest}', { params: { path: { image_digest: archived } } });
      expect(data?.image_id).toBe(image.configDigest);
      expect(data?.image_content?.metadata).toMatchObject({ distro: 'debian', distro_version: '12', arch: 'amd64', layer_count: 4 });
    });

    it('reports the same packages for every ecosystem, the same files and the same counts', async () => {
      expect(await packagesOf(archived, 'os')).toEqual(sortExpected([...EXPECTED_DPKG, ...expectedRpm(rpmdb!)]));
      expect(await packagesOf(archived, 'npm')).toEqual(sortExpected(EXPECTED_NPM));
      expect(await packagesOf(archived, 'python')).toEqual(sortExpected(EXPECTED_PYTHON));
      expect(await packagesOf(archived, 'gem')).toEqual(sortExpected(EXPECTED_GEM));
      expect(await packagesOf(archived, 'go')).toEqual(sortExpected(expectedGo(go!)));
      // Everything else too (cpes, metadata), compared whole with the registry analysis.
      for (const type of ['os', 'npm', 'python', 'gem', 'go', ...LANGUAGE_TYPES] as const) expect(await contentOf(archived, type), type).toEqual(await contentOf(digest, type));
      expect(await javaOf(archived)).toEqual(await javaOf(digest));
      expect(await filesOf(archived)).toEqual(await filesOf(digest));
      expect(await summaryOf(archived)).toEqual(await summaryOf(digest));
    });
  });
});
