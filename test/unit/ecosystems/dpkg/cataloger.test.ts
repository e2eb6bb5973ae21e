import { describe, expect, it } from 'vitest';
import { parseDpkgSource, parseDpkgStatus } from '../../../../src/ecosystems/dpkg/cataloger.js';
import { catalogerNamed } from '../../../../src/ecosystems/registry.js';

const dpkgCataloger = catalogerNamed('dpkg');
import type { CatalogedPackage } from '../../../../src/ecosystems/model.js';

const STATUS_PATH = '/var/lib/dpkg/status';

/** Shaped after a Debian 12 image's /var/lib/dpkg/status (trimmed), with removed and broken entries added. */
const STATUS = `Package: base-files
Essential: yes
Status: install ok installed
Priority: required
Section: admin
Installed-Size: 394
Maintainer: Santiago Vila <sanvila@debian.org>
Architecture: amd64
Multi-Arch: foreign
Version: 12.4+deb12u5
Replaces: base, dpkg (<= 1.15.0), miscutils
Provides: base
Conffiles:
 /etc/debian_version 1ca1ff2fb29b57bb4bbf8d1b0c2ea8b1
 /etc/dpkg/origins/debian c47b6815f67ad1aeccb0d4529bd0b990
Description: Debian base system miscellaneous files
 This package contains the basic filesystem hierarchy of a Debian system, and
 several important miscellaneous files, such as /etc/debian_version,
 /etc/host.conf, /etc/issue, /etc/motd, /etc/profile, and others,
 .
 and the text of several common licenses in use on Debian systems.
Homepage: https://tracker.debian.org/pkg/base-files

Package: libc6
Status: install ok installed
Priority: optional
Section: libs
Installed-Size: 12986
Maintainer: GNU Libc Maintainers <debian-glibc@lists.debian.org>
Architecture: amd64
Multi-Arch: same
Source: glibc (2.36-9)
Version: 2.36-9+b1
Replaces: libc6-amd64
Depends: libgcc-s1
Recommends: libidn2-0 (>= 2.0.5~)
Suggests: glibc-doc, debconf | debconf-2.0, libc-l10n, locales, libnss-nis, libnss-nisplus
Breaks: aide (<< 0.17.3-4+b3), busybox (<< 1.30.1-6), chrony (<< 4.2-3~), fakechroot (<< 2.19-3.5),
 gnumach-image-1.8-486 (<< 2:1.8+git20210923~), hurd (<< 1:0.9.git20220301-2)
Conffiles:
 /etc/ld.so.conf.d/x86_64-linux-gnu.conf d4e7a7b88a71b5ffd9e2644e71a0cfab
Description: GNU C Library: Shared libraries
 Contains the standard libraries that are used by nearly all programs on
 the system. This package includes shared versions of the standard C library
 and the standard math library, as well as many others.
Homepage: https://www.gnu.org/software/libc/libc.html

Package: zlib1g
Status: install ok installed
Priority: optional
Section: libs
Installed-Size: 168
Maintainer: Mark Brown <broonie@debian.org>
Architecture: amd64
Multi-Arch: same
Source: zlib
Version: 1:1.2.13.dfsg-1
Provides: libz1
Depends: libc6 (>= 2.14)
Pre-Depends: dpkg (>= 1.16.1)
Breaks: libxml2 (<< 2.7.6.dfsg-2), texlive-binaries (<< 2009-12)
Conflicts: zlib1 (<= 1:1.0.4-7)
Description: compression library - runtime
 zlib is a library implementing the deflate compression method found
 in gzip and PKZIP.  This package includes the shared library.
Homepage: http://zlib.net/

Package: nano
Status: deinstall ok config-files
Priority: important
Section: editors
Installed-Size: 2776
Maintainer: Jordi Mallach <jordi@debian.org>
Architecture: amd64
Version: 7.2-1
Config-Version: 7.2-1
Conffiles:
 /etc/nanorc 3d5a1b5bcd0a8a3b1a4e9a5d5a3a0d0f
Description: small, friendly text editor inspired by Pico

Package: libbroken1
Status: install reinstreq half-installed
Priority: optional
Section: libs
Maintainer: Nobody <nobody@example.invalid>
Architecture: amd64
Version: 0.1-1
Description: a package whose unpack was interrupted

Package: libc-bin
Status: install ok triggers-pending
Priority: required
Section: libs
Installed-Size: 2315
Maintainer: GNU Libc Maintainers <debian-glibc@lists.debian.org>
Architecture: amd64
Multi-Arch: foreign
Source: glibc
Version: 2.36-9+b1
Depends: libc6 (>> 2.36), libc6 (<< 2.37)
Description: GNU C Library: Binaries

Package: tzdata
Status: hold ok installed
Priority: required
Section: localization
Installed-Size: 3466
Maintainer: GNU Libc Maintainers <debian-glibc@lists.debian.org>
Architecture: all
Multi-Arch: foreign
Version: 2024a-0+deb12u1
Provides: tzdata-bookworm
Depends: debconf (>= 0.5) | debconf-2.0
Description: time zone and daylight-saving time data
`;

describe('parseDpkgStatus', () => {
  const stanzas = parseDpkgStatus(STATUS);

  it('splits paragraphs on blank lines, one per package', () => {
    expect(stanzas.map((s) => s.get('package'))).toEqual(['base-files', 'libc6', 'zlib1g', 'nano', 'libbroken1', 'libc-bin', 'tzdata']);
  });

  it('joins continuation lines, turning " ." into an empty line', () => {
    expect(stanzas[0]!.get('description')).toBe(
      [
        'Debian base system miscellaneous files',
        'This package contains the basic filesystem hierarchy of a Debian system, and',
        'several important miscellaneous files, such as /etc/debian_version,',
        '/etc/host.conf, /etc/issue, /etc/motd, /etc/profile, and others,',
        '',
        'and the text of several common licenses in use on Debian systems.',
      ].join('\n'),
    );
    expect(stanzas[0]!.get('conffiles')!.split('\n')).toHaveLength(3);
    expect(stanzas[0]!.get('homepage')).toBe('https://tracker.debian.org/pkg/base-files');
    expect(stanzas[1]!.get('breaks')).toContain('hurd (<< 1:0.9.git20220301-2)');
  });

  it('treats field names case-insensitively and copes with CRLF, leading blank lines and no trailing newline', () => {
    const parsed = parseDpkgStatus('\r\n\r\nPACKAGE: a\r\nversion: 1\r\n\r\nPackage: b\r\nVersion: 2');
    expect(parsed.map((s) => [s.get('package'), s.get('version')])).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
  });

  it('returns nothing for empty or field-less input', () => {
    expect(parseDpkgStatus('')).toEqual([]);
    expect(parseDpkgStatus('\n\n \n')).toEqual([]);
    expect(parseDpkgStatus(' orphan continuation\nno colon here\n')).toEqual([]);
  });
});

describe('parseDpkgSource', () => {
  it('reads both Source forms', () => {
    expect(parseDpkgSource('glibc (2.36-9)')).toEqual({ origin: 'glibc', sourceVersion: '2.36-9' });
    expect(parseDpkgSource('zlib')).toEqual({ origin: 'zlib' });
    expect(parseDpkgSource('gcc-12 (12.2.0-14)')).toEqual({ origin: 'gcc-12', sourceVersion: '12.2.0-14' });
    expect(parseDpkgSource(undefined)).toEqual({});
    expect(parseDpkgSource('')).toEqual({});
  });
});

describe('dpkg cataloger', () => {
  const packages = dpkgCataloger.parse(STATUS_PATH, Buffer.from(STATUS)) as CatalogedPackage[];
  const byName = (name: string) => packages.find((p) => p.name === name)!;

  it('matches the status file and distroless status.d entries, not md5sums or neighbours', () => {
    expect(dpkgCataloger.matches('/var/lib/dpkg/status')).toBe(true);
    expect(dpkgCataloger.matches('/var/lib/dpkg/status.d/libssl3')).toBe(true);
    expect(dpkgCataloger.matches('/var/lib/dpkg/status.d/base')).toBe(true);
    expect(dpkgCataloger.matches('/var/lib/dpkg/status.d/libssl3.md5sums')).toBe(false);
    expect(dpkgCataloger.matches('/var/lib/dpkg/status.d/')).toBe(false);
    expect(dpkgCataloger.matches('/var/lib/dpkg/status.d/nested/x')).toBe(false);
    expect(dpkgCataloger.matches('/var/lib/dpkg/status-old')).toBe(false);
    expect(dpkgCataloger.matches('/var/lib/dpkg/available')).toBe(false);
    expect(dpkgCataloger.matches('/usr/var/lib/dpkg/status')).toBe(false);
  });

  it('keeps installed packages only: config-files and half-installed are gone, hold and triggers-pending stay', () => {
    expect(packages.map((p) => p.name)).toEqual(['base-files', 'libc6', 'zlib1g', 'libc-bin', 'tzdata']);
  });

  it('records the package as dpkg wrote it', () => {
    const libc = byName('libc6');
    expect(libc).toMatchObject({
      name: 'libc6',
      version: '2.36-9+b1',
      type: 'dpkg',
      locations: [STATUS_PATH],
      licenses: [],
      origin: 'glibc',
      sourceVersion: '2.36-9',
      size: 12986 * 1024,
    });
    expect(libc.metadata).toEqual({
      architecture: 'amd64',
      maintainer: 'GNU Libc Maintainers <debian-glibc@lists.debian.org>',
      depends: ['libgcc-s1'],
      description: 'GNU C Library: Shared libraries',
    });
  });

  it('reads Source without a version, epochs, Pre-Depends, Provides and alternatives', () => {
    const zlib = byName('zlib1g');
    expect(zlib.version).toBe('1:1.2.13.dfsg-1');
    expect(zlib.origin).toBe('zlib');
    expect(zlib).not.toHaveProperty('sourceVersion');
    expect(zlib.size).toBe(168 * 1024);
    expect(zlib.metadata).toMatchObject({ depends: ['libc6 (>= 2.14)'], preDepends: ['dpkg (>= 1.16.1)'], provides: ['libz1'] });
    expect(byName('tzdata').metadata.depends).toEqual(['debconf (>= 0.5) | debconf-2.0']);
    expect(byName('libc-bin').metadata.depends).toEqual(['libc6 (>> 2.36)', 'libc6 (<< 2.37)']);
    expect(byName('libc-bin')).toMatchObject({ origin: 'glibc' });
  });

  it('leaves origin unset when there is no Source field', () => {
    expect(byName('base-files')).not.toHaveProperty('origin');
    expect(byName('base-files').metadata.description).toBe('Debian base system miscellaneous files');
  });

  it('gives a debian purl without distro and a name:name CPE before finalize', () => {
    expect(byName('libc6').purl).toBe('pkg:deb/debian/libc6@2.36-9+b1?arch=amd64');
    expect(byName('libc6').cpes).toEqual(['cpe:2.3:a:libc6:libc6:2.36-9\\+b1:*:*:*:*:*:*:*']);
    expect(byName('tzdata').purl).toBe('pkg:deb/debian/tzdata@2024a-0+deb12u1?arch=all');
  });

  it('finalize fills in the distro namespace and qualifier', () => {
    const debian = dpkgCataloger.finalize!(packages, { name: 'debian', version: '12', like: [] });
    expect(debian.find((p) => p.name === 'libc6')!.purl).toBe('pkg:deb/debian/libc6@2.36-9+b1?arch=amd64&distro=debian-12');
    expect(debian.find((p) => p.name === 'zlib1g')!.purl).toBe('pkg:deb/debian/zlib1g@1:1.2.13.dfsg-1?arch=amd64&distro=debian-12');
    const ubuntu = dpkgCataloger.finalize!(packages, { name: 'ubuntu', version: '22.04', like: ['debian'] });
    expect(ubuntu.find((p) => p.name === 'libc6')!.purl).toBe('pkg:deb/ubuntu/libc6@2.36-9+b1?arch=amd64&distro=ubuntu-22.04');
    const unknown = dpkgCataloger.finalize!(packages, undefined);
    expect(unknown.map((p) => p.purl)).toEqual(packages.map((p) => p.purl));
    // finalize returns new objects rather than mutating what the walker holds
    expect(packages.find((p) => p.name === 'libc6')!.purl).toBe('pkg:deb/debian/libc6@2.36-9+b1?arch=amd64');
  });

  it('does not throw on garbage', () => {
    expect(dpkgCataloger.parse(STATUS_PATH, Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x0a, 0x0a]))).toEqual([]);
    expect(dpkgCataloger.parse(STATUS_PATH, Buffer.alloc(0))).toEqual([]);
    // a stanza lacking a version is not a package
    expect(dpkgCataloger.parse(STATUS_PATH, Buffer.from('Package: x\nStatus: install ok installed\n'))).toEqual([]);
    // a non-numeric Installed-Size is ignored, not NaN
    const odd = dpkgCataloger.parse(STATUS_PATH, Buffer.from('Package: x\nVersion: 1\nInstalled-Size: lots\n')) as CatalogedPackage[];
    expect(odd).toHaveLength(1);
    expect(odd[0]).not.toHaveProperty('size');
  });
});

describe('dpkg cataloger on distroless status.d', () => {
  // gcr.io/distroless/base-debian12 keeps one file per package and no Status field.
  const files: Record<string, string> = {
    '/var/lib/dpkg/status.d/libssl3': `Package: libssl3
Source: openssl
Version: 3.0.11-1~deb12u2
Architecture: amd64
Maintainer: Debian OpenSSL Team <pkg-openssl-devel@alioth-lists.debian.net>
Installed-Size: 6232
Depends: libc6 (>= 2.34)
Section: libs
Priority: optional
Multi-Arch: same
Homepage: https://www.openssl.org/
Description: Secure Sockets Layer toolkit - shared libraries
 This package is part of the OpenSSL project's implementation of the SSL
 and TLS cryptographic protocols for secure communication over the
 Internet.
 .
 It contains the libssl and libcrypto shared libraries.
`,
    '/var/lib/dpkg/status.d/base-files': `Package: base-files
Version: 12.4+deb12u5
Architecture: amd64
Maintainer: Santiago Vila <sanvila@debian.org>
Installed-Size: 394
Essential: yes
Description: Debian base system miscellaneous files
`,
    '/var/lib/dpkg/status.d/netbase': `Package: netbase
Version: 6.4
Architecture: all
Maintainer: Marco d'Itri <md@linux.it>
Installed-Size: 41
Description: Basic TCP/IP networking system
`,
  };

  it('reads each file as installed and records the file as its location', () => {
    const found = Object.entries(files).flatMap(([path, text]) => {
      expect(dpkgCataloger.matches(path)).toBe(true);
      return dpkgCataloger.parse(path, Buffer.from(text)) as CatalogedPackage[];
    });
    expect(found.map((p) => [p.name, p.version, p.locations[0]])).toEqual([
      ['libssl3', '3.0.11-1~deb12u2', '/var/lib/dpkg/status.d/libssl3'],
      ['base-files', '12.4+deb12u5', '/var/lib/dpkg/status.d/base-files'],
      ['netbase', '6.4', '/var/lib/dpkg/status.d/netbase'],
    ]);
    const ssl = found[0]!;
    expect(ssl).toMatchObject({ origin: 'openssl', size: 6232 * 1024, metadata: { architecture: 'amd64', depends: ['libc6 (>= 2.34)'] } });
    expect(ssl.metadata.description).toBe('Secure Sockets Layer toolkit - shared libraries');
    const finalized = dpkgCataloger.finalize!(found, { name: 'debian', version: '12', like: [] });
    expect(finalized.map((p) => p.purl)).toEqual([
      'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12',
      'pkg:deb/debian/base-files@12.4+deb12u5?arch=amd64&distro=debian-12',
      'pkg:deb/debian/netbase@6.4?arch=all&distro=debian-12',
    ]);
  });
});
