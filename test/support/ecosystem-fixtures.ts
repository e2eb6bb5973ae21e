/**
 * Fixtures for the every-ecosystem image test (test/api/image-ecosystems.test.ts): file contents shaped like
 * what the real tools write (dpkg, distroless, RubyGems, pip/setuptools, npm 9, maven-war-plugin), a real Go
 * binary built with the Go toolchain, and a tiny overlay model that says which paths an image's final
 * filesystem holds, computed from the layers without the server's code.
 *
 * The rpm database is built by `buildRpmdbFixture` of the rpm cataloger tests (rpmbuild + `rpm --justdb`).
 */
import { offlineGoEnv, writeModuleProxy } from './go-build.js';
import { requireTool } from './tools.js';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { FileSpec } from './image-builder.js';

// ---------------------------------------------------------------------------------------------------------------
// Go

export interface GoBinaryFixture {
  binary: Buffer;
  /** Hex sha256 of `binary`. */
  sha256: string;
  /** `go env GOVERSION`, e.g. go1.19.8. */
  goVersion: string;
  mainModule: string;
  dependency: { path: string; version: string };
  cleanup(): void;
}

function write(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

/**
 * Builds a linux/amd64 binary (CGO_ENABLED=0, -trimpath) of `example.com/agent`, which requires one versioned
 * module served by a `file://` GOPROXY written here, so the build is offline and the build info carries an h1: sum.
 */
export function buildGoBinary(): GoBinaryFixture {
  requireTool('go');
  const dir = mkdtempSync(join(tmpdir(), 'vigil-eco-go-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const dependency = { path: 'github.com/vigil-test/greeting', version: 'v1.2.3' };
    const depMod = `module ${dependency.path}\n\ngo 1.18\n`;
    const depSrc = 'package greeting\n\nfunc Hello(name string) string { return "hello, " + name }\n';
    writeModuleProxy(join(dir, 'proxy'), dependency.path, dependency.version, { 'go.mod': depMod, 'greeting.go': depSrc });
    const mainModule = 'example.com/agent';
    write(join(dir, 'app/go.mod'), `module ${mainModule}\n\ngo 1.18\n\nrequire ${dependency.path} ${dependency.version}\n`);
    write(
      join(dir, 'app/main.go'),
      `package main\n\nimport (\n\t"fmt"\n\n\t"${dependency.path}"\n)\n\nfunc main() { fmt.Println(greeting.Hello("vigil")) }\n`,
    );
    // The image is linux/amd64, so is its binary, whatever the host.
    const env = offlineGoEnv(dir, { proxy: join(dir, 'proxy'), goarch: 'amd64' });
    const go = (...args: string[]): string => {
      try {
        return execFileSync('go', args, { cwd: join(dir, 'app'), env, stdio: 'pipe' }).toString().trim();
      } catch (err) {
        const e = err as { stderr?: Buffer; message: string };
        throw new Error(`go ${args.join(' ')} failed: ${e.stderr?.toString() || e.message}`);
      }
    };
    go('build', '-trimpath', '-buildvcs=false', '-o', join(dir, 'vigil-agent'), '.');
    const binary = readFileSync(join(dir, 'vigil-agent'));
    return {
      binary,
      sha256: createHash('sha256').update(binary).digest('hex'),
      goVersion: go('env', 'GOVERSION'),
      mainModule,
      dependency,
      cleanup,
    };
  } catch (err) {
    cleanup();
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// rpm

/** Specs for rpmbuild: a noarch package with an epoch and vendor, and a host-arch source package with a subpackage. */
export const RPM_SPECS: Record<string, string> = {
  'vigil-hello': `
Name: vigil-hello
Version: 1.2.3
Release: 4.el9
Epoch: 2
Summary: Test package with an epoch
License: MIT AND Apache-2.0
Vendor: Vigil Test Vendor
BuildArch: noarch

%description
Says hello.

%install
mkdir -p %{buildroot}/usr/share/vigil-hello
echo hello > %{buildroot}/usr/share/vigil-hello/README

%files
/usr/share/vigil-hello/README
`,
  'vigil-tools': `
%global debug_package %{nil}
Name: vigil-tools
Version: 0.9.1
Release: 1.el9
Summary: Test package with a subpackage
License: GPL-2.0-or-later

%description
The tools.

%package -n vigil-libs
Summary: The libraries
License: LGPL-2.1-only

%description -n vigil-libs
The libraries.

%install
mkdir -p %{buildroot}/usr/share/vigil-tools %{buildroot}/usr/share/vigil-libs
echo tool > %{buildroot}/usr/share/vigil-tools/tool.txt
printf 'library data\\n' > %{buildroot}/usr/share/vigil-libs/lib.txt

%files
/usr/share/vigil-tools/tool.txt

%files -n vigil-libs
/usr/share/vigil-libs/lib.txt
`,
};

// ---------------------------------------------------------------------------------------------------------------
// Debian

export const DEBIAN_OS_RELEASE =
  'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\n' +
  'VERSION_CODENAME=bookworm\nID=debian\nHOME_URL="https://www.debian.org/"\n';

/** /var/lib/dpkg/status: installed packages (one without Source, one with `Source: name (version)`) and a removed one. */
export const DPKG_STATUS = `Package: base-files
Essential: yes
Status: install ok installed
Priority: required
Section: admin
Installed-Size: 341
Maintainer: Santiago Vila <sanvila@debian.org>
Architecture: amd64
Multi-Arch: foreign
Version: 12.4+deb12u5
Replaces: base, dpkg (<= 1.15.0), miscutils
Provides: base
Conffiles:
 /etc/debian_version 4e8b8e5e4d7d4a0fd0b1d0d1d6b0e5c4
 /etc/host.conf 4eb63731c9f5e30903ac4fc07a7fe3d6
Description: Debian base system miscellaneous files
 This package contains the basic filesystem hierarchy of a Debian system, and
 several important miscellaneous files, such as /etc/debian_version,
 .
 /etc/host.conf, /etc/issue, /etc/motd, /etc/profile, and others,
Homepage: https://tracker.debian.org/pkg/base-files

Package: libc6
Status: install ok installed
Priority: optional
Section: libs
Installed-Size: 12000
Maintainer: GNU Libc Maintainers <debian-glibc@lists.debian.org>
Architecture: amd64
Multi-Arch: same
Source: glibc
Version: 2.36-9+deb12u4
Depends: libgcc-s1
Recommends: libidn2-0 (>= 2.0.5~)
Description: GNU C Library: Shared libraries
 Contains the standard libraries that are used by nearly all programs on
 the system.
Homepage: https://www.gnu.org/software/libc/libc.html

Package: libblkid1
Status: install ok installed
Priority: optional
Section: libs
Installed-Size: 433
Maintainer: util-linux packagers <util-linux@packages.debian.org>
Architecture: amd64
Multi-Arch: same
Source: util-linux (2.38.1-5)
Version: 2.38.1-5+b1
Depends: libc6 (>= 2.33)
Description: block device ID library

Package: zlib1g
Status: install ok installed
Priority: optional
Section: libs
Installed-Size: 160
Maintainer: Mark Brown <broonie@debian.org>
Architecture: amd64
Multi-Arch: same
Source: zlib
Version: 1:1.2.13.dfsg-1
Provides: libz1
Depends: libc6 (>= 2.14)
Description: compression library - runtime

Package: exim4-config
Status: deinstall ok config-files
Priority: important
Section: mail
Installed-Size: 485
Maintainer: Exim4 Maintainers <pkg-exim4-maintainers@lists.alioth.debian.org>
Architecture: all
Source: exim4
Version: 4.96-15+deb12u4
Description: configuration for the Exim MTA (v4)
`;

/** distroless: one stanza per file in /var/lib/dpkg/status.d, no Status field, md5sums beside it. */
export const STATUS_D_LIBSSL3 = `Package: libssl3
Version: 3.0.11-1~deb12u2
Architecture: amd64
Maintainer: Debian OpenSSL Team <pkg-openssl-devel@alioth-lists.debian.net>
Installed-Size: 6292
Depends: libc6 (>= 2.34)
Section: libs
Priority: optional
Multi-Arch: same
Homepage: https://www.openssl.org/
Source: openssl
Description: Secure Sockets Layer toolkit - shared libraries
`;

export const STATUS_D_TZDATA = `Package: tzdata
Version: 2024a-0+deb12u1
Architecture: all
Maintainer: GNU Libc Maintainers <debian-glibc@lists.debian.org>
Installed-Size: 3010
Depends: debconf (>= 0.5) | debconf-2.0
Provides: tzdata-bookworm
Section: localization
Priority: required
Multi-Arch: foreign
Homepage: https://www.iana.org/time-zones
Description: time zone and daylight-saving time data
`;

// ---------------------------------------------------------------------------------------------------------------
// Python

/** A wheel's METADATA (core metadata 2.1), as pip installs it. */
export function wheelMetadata(o: { name: string; version: string; summary: string; license: string; classifiers: string[]; requires?: string[] }): string {
  return [
    'Metadata-Version: 2.1',
    `Name: ${o.name}`,
    `Version: ${o.version}`,
    `Summary: ${o.summary}`,
    `Home-page: https://pypi.org/project/${o.name}/`,
    'Author: Example Author',
    'Author-email: author@example.org',
    `License: ${o.license}`,
    ...o.classifiers.map((c) => `Classifier: ${c}`),
    'Requires-Python: >=3.7',
    ...(o.requires ?? []).map((r) => `Requires-Dist: ${r}`),
    'Description-Content-Type: text/markdown',
    '',
    `# ${o.name}`,
    '',
    'A long description that is the body of the file and is not read.',
    '',
  ].join('\n');
}

/** A setuptools PKG-INFO (core metadata 1.x), as in `*.egg-info/PKG-INFO` or a bare `*.egg-info` file. */
export function pkgInfo(o: { name: string; version: string; summary: string; license: string; classifiers: string[] }): string {
  return [
    'Metadata-Version: 1.2',
    `Name: ${o.name}`,
    `Version: ${o.version}`,
    `Summary: ${o.summary}`,
    `Home-page: https://pypi.org/project/${o.name}/`,
    'Author: Example Author',
    'Author-email: author@example.org',
    `License: ${o.license}`,
    'Platform: Any',
    ...o.classifiers.map((c) => `Classifier: ${c}`),
    '',
  ].join('\n');
}

export function requestsMetadata(version: string): string {
  return wheelMetadata({
    name: 'requests',
    version,
    summary: 'Python HTTP for Humans.',
    license: 'Apache 2.0',
    classifiers: ['License :: OSI Approved :: Apache Software License', 'Programming Language :: Python :: 3'],
    requires: ['charset-normalizer (<4,>=2)', 'idna (<4,>=2.5)', 'urllib3 (<3,>=1.21.1)', 'certifi (>=2017.4.17)'],
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Ruby

/** An installed specification the way RubyGems 3.3 writes it into `specifications/`. */
export function installedGemspec(o: {
  name: string;
  version: string;
  licenses: string[];
  authors: string[];
  homepage: string;
  platform?: string;
  summary: string;
}): string {
  const list = (values: string[]) => `[${values.map((v) => `"${v}".freeze`).join(', ')}]`;
  return [
    '# -*- encoding: utf-8 -*-',
    `# stub: ${o.name} ${o.version} ${o.platform ?? 'ruby'} lib`,
    '',
    'Gem::Specification.new do |s|',
    `  s.name = "${o.name}".freeze`,
    `  s.version = "${o.version}"`,
    ...(o.platform ? [`  s.platform = "${o.platform}".freeze`] : []),
    '',
    '  s.required_rubygems_version = Gem::Requirement.new(">= 0".freeze) if s.respond_to? :required_rubygems_version=',
    `  s.metadata = { "homepage_uri" => "${o.homepage}" } if s.respond_to? :metadata=`,
    '  s.require_paths = ["lib".freeze]',
    `  s.authors = ${list(o.authors)}`,
    '  s.date = "2022-04-12"',
    `  s.homepage = "${o.homepage}".freeze`,
    `  s.licenses = ${list(o.licenses)}`,
    '  s.required_ruby_version = Gem::Requirement.new(">= 2.6".freeze)',
    '  s.rubygems_version = "3.3.15".freeze',
    `  s.summary = "${o.summary}".freeze`,
    '',
    '  s.installed_by_version = "3.3.15" if s.respond_to? :installed_by_version',
    'end',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Java

const ZIP_MTIME = new Date('2024-01-01T00:00:00Z');

function zip(files: Record<string, string | Uint8Array>): Buffer {
  const z: Zippable = {};
  for (const [name, content] of Object.entries(files)) z[name] = typeof content === 'string' ? strToU8(content) : content;
  // A fixed mtime keeps the archive, hence the layer and image digests, the same on every run.
  return Buffer.from(zipSync(z, { mtime: ZIP_MTIME }));
}

function manifestMf(attributes: Record<string, string>): string {
  return `${Object.entries(attributes)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
}

function pomProperties(groupId: string, artifactId: string, version: string): string {
  return `#Created by Apache Maven 3.9.4\nartifactId=${artifactId}\ngroupId=${groupId}\nversion=${version}\n`;
}

const CLASS_FILE = new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61]);

export interface MavenJarSpec {
  groupId: string;
  artifactId: string;
  version: string;
  manifest: Record<string, string>;
}

export function mavenJar(spec: MavenJarSpec): Buffer {
  const { groupId, artifactId, version } = spec;
  return zip({
    'META-INF/MANIFEST.MF': manifestMf({ 'Manifest-Version': '1.0', ...spec.manifest }),
    [`META-INF/maven/${groupId}/${artifactId}/pom.properties`]: pomProperties(groupId, artifactId, version),
    [`META-INF/maven/${groupId}/${artifactId}/pom.xml`]: `<project><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></project>\n`,
    [`${groupId.replace(/\./g, '/')}/Main.class`]: CLASS_FILE,
  });
}

/** A war as maven-war-plugin builds it: its own manifest and pom.properties, classes, and dependency jars in WEB-INF/lib. */
export function mavenWar(spec: MavenJarSpec, libs: Record<string, Buffer>): Buffer {
  const { groupId, artifactId, version } = spec;
  return zip({
    'META-INF/MANIFEST.MF': manifestMf({ 'Manifest-Version': '1.0', ...spec.manifest }),
    [`META-INF/maven/${groupId}/${artifactId}/pom.properties`]: pomProperties(groupId, artifactId, version),
    'WEB-INF/web.xml': '<?xml version="1.0" encoding="UTF-8"?>\n<web-app version="4.0"/>\n',
    'WEB-INF/classes/com/example/shop/ShopServlet.class': CLASS_FILE,
    ...Object.fromEntries(Object.entries(libs).map(([name, jar]) => [`WEB-INF/lib/${name}`, new Uint8Array(jar)])),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The final filesystem, modelled independently of the server

/**
 * Paths (absolute) of the final view of `layers`, following the OCI layer rules the test uses: entries add a path
 * and its parents; `.wh.<name>` removes `<name>` and everything below it that lower layers wrote; whiteout files
 * themselves are not part of the view. (Opaque whiteouts are not used by the fixtures and not modelled.)
 */
export function finalPaths(layers: FileSpec[][]): Set<string> {
  const view = new Set<string>();
  for (const layer of layers) {
    const written = new Set<string>();
    for (const spec of layer) {
      const path = `/${spec.path.replace(/^\/+/, '').replace(/\/+$/, '')}`;
      const slash = path.lastIndexOf('/');
      const name = path.slice(slash + 1);
      if (name.startsWith('.wh.')) {
        const hidden = `${path.slice(0, slash)}/${name.slice('.wh.'.length)}`;
        for (const p of [...view]) if ((p === hidden || p.startsWith(`${hidden}/`)) && !written.has(p)) view.delete(p);
        continue;
      }
      const parts = path.split('/').filter(Boolean);
      for (let i = 1; i <= parts.length; i++) {
        const p = `/${parts.slice(0, i).join('/')}`;
        view.add(p);
        written.add(p);
      }
    }
  }
  return view;
}
