import { describe, expect, it } from 'vitest';
import { FILES, parseApkInstalled, splitApkLicense } from '../../../../src/ecosystems/apk/cataloger.js';
import { catalogerNamed } from '../../../../src/ecosystems/registry.js';
import type { CatalogedPackage } from '../../../../src/ecosystems/model.js';

const DB_PATH = '/lib/apk/db/installed';
const apkCataloger = catalogerNamed('apk');

/** Shaped after an Alpine 3.19 image's /lib/apk/db/installed (file lists trimmed), plus an older-style license. */
const INSTALLED = `C:Q1bsdHmAe2vpWXeSHOBp2b/V5PPSA=
P:musl
V:1.2.4_git20230717-r4
A:x86_64
S:407726
I:667648
T:the musl c library (libc) implementation
U:https://musl.libc.org/
L:MIT
o:musl
m:Timo Teräs <timo.teras@iki.fi>
t:1700836245
c:ca7f2ab5e88794e4e654b40776f8a92256f50639
p:so:libc.musl-x86_64.so.1=1
F:lib
R:ld-musl-x86_64.so.1
a:0:0:755
Z:Q1OYhDZ1rDvgM6xqGiAaSTAKyVY9U=
R:libc.musl-x86_64.so.1
a:0:0:777
Z:Q17yJ3JFNypA4mxhJJr0ou6CzsJVI=

C:Q1OvSPXSmqmKdJdQ2Q14oeGpnFBPM=
P:busybox
V:1.36.1-r15
A:x86_64
S:517378
I:946176
T:Size optimized toolbox of many common UNIX utilities
U:https://busybox.net/
L:GPL-2.0-only
o:busybox
m:Sören Tempel <soeren+alpine@soeren-tempel.net>
t:1701179234
c:b3b5e9a5e2ef1dcb2d20ec0c5c7d1ce5c9b8c74c
D:so:libc.musl-x86_64.so.1
p:cmd:busybox=1.36.1-r15
r:busybox-initscripts
F:bin
R:busybox
a:0:0:755
Z:Q1WUwBY0eOGgzgVxTZxJBZPyQUicI=
F:etc
R:securetty
Z:Q1mB95Hq2NUTZ599RDiSsj9w5FrOU=

C:Q1GDnYOLgEP4RNXd1DhLm3H0tC6v0=
P:ca-certificates-bundle
V:20230506-r0
A:x86_64
S:126055
I:228864
T:Pre generated bundle of Mozilla certificates
U:https://www.mozilla.org/en-US/about/governance/policies/security-group/certs/
L:MPL-2.0 AND MIT
o:ca-certificates
m:Natanael Copa <ncopa@alpinelinux.org>
t:1683393817
c:59534a02716a92a10d177a118c34066162eff4a6
r:ca-certificates-cacert
p:ca-certificates-cacert=20230506-r0
F:etc
F:etc/ssl
F:etc/ssl/certs
R:ca-certificates.crt
Z:Q1xZJZUEoUGSRh8dlGUKkHE5qTtN0=

C:Q1dZ2T1h6O4lPAvoStA7C5+ZyYyyo=
P:libcrypto3
V:3.1.4-r2
A:x86_64
S:1710178
I:4407296
T:Crypto library from openssl
U:https://www.openssl.org/
L:Apache-2.0
o:openssl
m:Ariadne Conill <ariadne@dereferenced.org>
t:1701354128
c:e6a9ea3ab74a4f4e1a3a56be1e8e2e3c8a2ad52f
D:so:libc.musl-x86_64.so.1
p:so:libcrypto.so.3=3
F:lib
R:libcrypto.so.3
a:0:0:755

C:Q1wZ9KzqLLr6mpJz7iYhtBkUCeV8I=
P:libgcc
V:13.2.1_git20231014-r0
A:x86_64
S:110620
I:233472
T:GNU C compiler runtime libraries
U:https://gcc.gnu.org
L:GPL-2.0-or-later LGPL-2.1-or-later
o:gcc
m:Ariadne Conill <ariadne@dereferenced.org>
t:1697386416
c:3e4a4df1b1ee5fb3cac3b2f5cb7d46fd4ec51a4f

C:Q1Pl2m3K9kLwJ2VbOQ+f2s3e9x1cM=
P:alpine-keys
V:2.4-r1
A:x86_64
S:13360
I:159744
T:Public keys for Alpine Linux packages
U:https://alpinelinux.org
L:MIT OR Apache-2.0
o:alpine-keys
m:Natanael Copa <ncopa@alpinelinux.org>
t:1681228881
c:aab68f8c9ab434a46710de8e12fb3206e2930a59
`;

describe('parseApkInstalled', () => {
  const records = parseApkInstalled(INSTALLED);

  it('splits records on blank lines and keeps repeated keys in order', () => {
    expect(records.map((r) => r.get('P')?.[0])).toEqual(['musl', 'busybox', 'ca-certificates-bundle', 'libcrypto3', 'libgcc', 'alpine-keys']);
    expect(records[0]!.get('R')).toEqual(['ld-musl-x86_64.so.1', 'libc.musl-x86_64.so.1']);
    expect(records[1]!.get('F')).toEqual(['bin', 'etc']);
    expect(records[0]!.get('a')).toEqual(['0:0:755', '0:0:777']);
  });

  it('keeps values containing colons and copes with CRLF and missing trailing newline', () => {
    expect(records[0]!.get('p')).toEqual(['so:libc.musl-x86_64.so.1=1']);
    const parsed = parseApkInstalled('P:a\r\nV:1-r0\r\n\r\nP:b\r\nV:2-r0');
    expect(parsed.map((r) => [r.get('P')?.[0], r.get('V')?.[0]])).toEqual([
      ['a', '1-r0'],
      ['b', '2-r0'],
    ]);
  });

  it('ignores lines that are not "K:value"', () => {
    expect(parseApkInstalled('garbage\n::\nPX\n')).toEqual([]);
  });
});

describe('splitApkLicense', () => {
  it('lists AND-ed SPDX terms and space-separated legacy lists separately', () => {
    expect(splitApkLicense('MIT')).toEqual(['MIT']);
    expect(splitApkLicense('MPL-2.0 AND MIT')).toEqual(['MPL-2.0', 'MIT']);
    expect(splitApkLicense('GPL-2.0-or-later LGPL-2.1-or-later')).toEqual(['GPL-2.0-or-later', 'LGPL-2.1-or-later']);
    expect(splitApkLicense('GPL-2.0-only WITH Linux-syscall-note AND MIT')).toEqual(['GPL-2.0-only WITH Linux-syscall-note', 'MIT']);
  });

  it('keeps OR expressions and parenthesised expressions whole', () => {
    expect(splitApkLicense('MIT OR Apache-2.0')).toEqual(['MIT OR Apache-2.0']);
    expect(splitApkLicense('BSD-3-Clause AND (MIT OR Apache-2.0)')).toEqual(['BSD-3-Clause AND (MIT OR Apache-2.0)']);
  });

  it('returns [] for missing or blank values', () => {
    expect(splitApkLicense(undefined)).toEqual([]);
    expect(splitApkLicense('  ')).toEqual([]);
  });
});

describe('apk cataloger', () => {
  const packages = apkCataloger.parse(DB_PATH, Buffer.from(INSTALLED)) as CatalogedPackage[];
  const byName = (name: string) => packages.find((p) => p.name === name)!;

  it('matches only the installed database, also under /usr/lib for usr-merged systems', () => {
    expect(apkCataloger.matches('/lib/apk/db/installed')).toBe(true);
    expect(apkCataloger.matches('/usr/lib/apk/db/installed')).toBe(true);
    expect(apkCataloger.matches('/usr/local/lib/apk/db/installed')).toBe(false);
    expect(apkCataloger.matches('/lib/apk/db/scripts.tar')).toBe(false);
    expect(apkCataloger.matches('/lib/apk/db/triggers')).toBe(false);
  });

  it('reports every package', () => {
    expect(packages.map((p) => `${p.name}@${p.version}`)).toEqual([
      'musl@1.2.4_git20230717-r4',
      'busybox@1.36.1-r15',
      'ca-certificates-bundle@20230506-r0',
      'libcrypto3@3.1.4-r2',
      'libgcc@13.2.1_git20231014-r0',
      'alpine-keys@2.4-r1',
    ]);
    for (const pkg of packages) {
      expect(pkg.type).toBe('apk');
      expect(pkg.locations).toEqual([DB_PATH]);
    }
  });

  it('takes origin from o:, size from I:, licenses from L:', () => {
    expect(byName('libcrypto3')).toMatchObject({ origin: 'openssl', size: 4407296, licenses: ['Apache-2.0'] });
    expect(byName('ca-certificates-bundle')).toMatchObject({ origin: 'ca-certificates', licenses: ['MPL-2.0', 'MIT'] });
    expect(byName('libgcc')).toMatchObject({ origin: 'gcc', licenses: ['GPL-2.0-or-later', 'LGPL-2.1-or-later'] });
    expect(byName('alpine-keys').licenses).toEqual(['MIT OR Apache-2.0']);
    expect(byName('musl')).toMatchObject({ origin: 'musl', size: 667648, licenses: ['MIT'] });
  });

  it('keeps the useful rest in metadata, UTF-8 intact', () => {
    expect(byName('musl').metadata).toEqual({
      architecture: 'x86_64',
      maintainer: 'Timo Teräs <timo.teras@iki.fi>',
      description: 'the musl c library (libc) implementation',
      url: 'https://musl.libc.org/',
      commit: 'ca7f2ab5e88794e4e654b40776f8a92256f50639',
      buildTime: 1700836245,
      packageSize: 407726,
      checksum: 'Q1bsdHmAe2vpWXeSHOBp2b/V5PPSA=',
      provides: ['so:libc.musl-x86_64.so.1=1'],
    });
    expect(byName('busybox').metadata.depends).toEqual(['so:libc.musl-x86_64.so.1']);
    expect(byName('busybox').metadata.maintainer).toBe('Sören Tempel <soeren+alpine@soeren-tempel.net>');
  });

  it('gives an alpine purl without distro and a name:name CPE before finalize', () => {
    expect(byName('busybox').purl).toBe('pkg:apk/alpine/busybox@1.36.1-r15?arch=x86_64');
    expect(byName('busybox').cpes).toEqual(['cpe:2.3:a:busybox:busybox:1.36.1-r15:*:*:*:*:*:*:*']);
  });

  it('finalize uses the apk distro as namespace and qualifier', () => {
    const alpine = apkCataloger.finalize!(packages, { name: 'alpine', version: '3.19.1', like: [] });
    expect(alpine.find((p) => p.name === 'musl')!.purl).toBe('pkg:apk/alpine/musl@1.2.4_git20230717-r4?arch=x86_64&distro=alpine-3.19.1');
    const wolfi = apkCataloger.finalize!(packages, { name: 'wolfi', version: '20230201', like: [] });
    expect(wolfi.find((p) => p.name === 'busybox')!.purl).toBe('pkg:apk/wolfi/busybox@1.36.1-r15?arch=x86_64&distro=wolfi-20230201');
    const derivative = apkCataloger.finalize!(packages, { name: 'acme', version: '1', like: ['alpine'] });
    expect(derivative.find((p) => p.name === 'busybox')!.purl).toBe('pkg:apk/acme/busybox@1.36.1-r15?arch=x86_64&distro=acme-1');
    // an apk database on a non-apk distro (odd, but seen in hand-built images) keeps the alpine namespace
    const debian = apkCataloger.finalize!(packages, { name: 'debian', version: '12', like: [] });
    expect(debian.find((p) => p.name === 'busybox')!.purl).toBe('pkg:apk/alpine/busybox@1.36.1-r15?arch=x86_64&distro=debian-12');
    expect(apkCataloger.finalize!(packages, undefined).map((p) => p.purl)).toEqual(packages.map((p) => p.purl));
  });

  it('skips records without name or version and does not throw on garbage', () => {
    expect(apkCataloger.parse(DB_PATH, Buffer.from('P:lonely\n\nV:1.0-r0\n'))).toEqual([]);
    expect(apkCataloger.parse(DB_PATH, Buffer.from([0xff, 0x00, 0x3a, 0x0a, 0x0a, 0xfe]))).toEqual([]);
    expect(apkCataloger.parse(DB_PATH, Buffer.alloc(0))).toEqual([]);
    const bare = apkCataloger.parse(DB_PATH, Buffer.from('P:bare\nV:1-r0\nI:notanumber\n')) as CatalogedPackage[];
    expect(bare).toHaveLength(1);
    expect(bare[0]).toMatchObject({ name: 'bare', licenses: [], metadata: {}, purl: 'pkg:apk/alpine/bare@1-r0' });
    expect(bare[0]).not.toHaveProperty('size');
    expect(bare[0]).not.toHaveProperty('origin');
  });
});

describe('apk file lists and ownership', () => {
  // Shaped after Alpine 3.19's py3-urllib3: the dist-info directory and the module files under site-packages.
  const SITE = 'usr/lib/python3.11/site-packages';
  const PY3_URLLIB3 = `P:py3-urllib3
V:1.26.18-r0
A:noarch
o:py3-urllib3
F:${SITE}/urllib3
R:__init__.py
R:connection.py
F:${SITE}/urllib3-1.26.18.dist-info
R:METADATA
R:RECORD
F:usr/share/licenses/py3-urllib3
R:LICENSE.txt
`;

  it('joins each file name to the directory listed before it', () => {
    const [record] = parseApkInstalled(PY3_URLLIB3);
    expect(record!.get(FILES)).toEqual([
      `/${SITE}/urllib3/__init__.py`,
      `/${SITE}/urllib3/connection.py`,
      `/${SITE}/urllib3-1.26.18.dist-info/METADATA`,
      `/${SITE}/urllib3-1.26.18.dist-info/RECORD`,
      '/usr/share/licenses/py3-urllib3/LICENSE.txt',
    ]);
    // A file before any directory lies in the root; the next record starts afresh.
    const [first, second] = parseApkInstalled('P:a\nV:1\nF:etc\nR:x\n\nP:b\nV:1\nR:y\n');
    expect(first!.get(FILES)).toEqual(['/etc/x']);
    expect(second!.get(FILES)).toEqual(['/y']);
  });

  it('keeps only the ownership keys of the file list: the language package metadata it installed', async () => {
    const [pkg] = (await apkCataloger.parse(DB_PATH, Buffer.from(PY3_URLLIB3))) as CatalogedPackage[];
    expect(pkg!.ownedPaths).toEqual([`/${SITE}/urllib3-1.26.18.dist-info`]);
    expect(pkg!.ownershipMs).toBeGreaterThanOrEqual(0);
    const [musl] = (await apkCataloger.parse(DB_PATH, Buffer.from(INSTALLED))) as CatalogedPackage[];
    expect(musl!.ownedPaths).toBeUndefined();
  });
});
