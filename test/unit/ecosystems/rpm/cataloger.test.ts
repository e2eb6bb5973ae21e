import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPMTAG, RpmHeaderError, RpmType, parseRpmHeader } from '../../../../src/ecosystems/rpm/header.js';
import { readBerkeleyHashValues } from '../../../../src/ecosystems/rpm/berkeley-db.js';
import { readRpmdbSqliteBlobs, rpmPackageFromHeader, sourceRpmName } from '../../../../src/ecosystems/rpm/cataloger.js';
import { catalogerNamed } from '../../../../src/ecosystems/registry.js';
import type { CatalogedPackage } from '../../../../src/ecosystems/model.js';
import { buildRpmHeaderBlob } from './testdata/rpm-header-builder.js';
import { type RpmdbFixture, type RpmQuery, buildBerkeleyPackagesFile, buildRpmdbFixture } from './testdata/rpmdb.js';
import { missingTools } from '../../../support/tools.js';

const DB_PATH = '/var/lib/rpm/rpmdb.sqlite';
const rpmCataloger = catalogerNamed('rpm');

const SPECS: Record<string, string> = {
  // noarch, with an epoch, an SPDX expression and a vendor.
  'vigil-hello': `
Name: vigil-hello
Version: 1.2.3
Release: 4.fc99
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
  // Built for the host architecture; two binary packages from one source package, no epoch, no vendor.
  'vigil-foo': `
%global debug_package %{nil}
Name: vigil-foo
Version: 0.9.1
Release: 1.el9
Summary: Test package with a subpackage
License: GPL-2.0-or-later

%description
The foo tool.

%package -n vigil-libfoo
Summary: The foo library
License: LGPL-2.1-only

%description -n vigil-libfoo
The foo library.

%install
mkdir -p %{buildroot}/usr/share/vigil-foo %{buildroot}/usr/share/vigil-libfoo
echo tool > %{buildroot}/usr/share/vigil-foo/tool.txt
printf 'library data, somewhat longer\\n' > %{buildroot}/usr/share/vigil-libfoo/lib.txt

%files
/usr/share/vigil-foo/tool.txt

%files -n vigil-libfoo
/usr/share/vigil-libfoo/lib.txt
`,
};

/** What the cataloger should report for a package, derived from `rpm -qp` output. */
function expectedFromQuery(q: RpmQuery) {
  const hasEpoch = q.EPOCH !== '(none)';
  return {
    name: q.NAME,
    version: `${hasEpoch ? `${q.EPOCH}:` : ''}${q.VERSION}-${q.RELEASE}`,
    licenses: [q.LICENSE],
    size: Number(q.SIZE),
    metadata: {
      version: q.VERSION,
      release: q.RELEASE,
      ...(hasEpoch ? { epoch: Number(q.EPOCH) } : {}),
      architecture: q.ARCH,
      sourceRpm: q.SOURCERPM,
      ...(q.VENDOR !== '(none)' ? { vendor: q.VENDOR } : {}),
    },
  };
}

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('rpm cataloger on an rpmdb.sqlite written by rpm', () => {
  let fixture: RpmdbFixture;
  let packages: CatalogedPackage[];
  const byName = (name: string) => packages.find((p) => p.name === name)!;

  beforeAll(async () => {
    fixture = buildRpmdbFixture(SPECS);
    packages = await rpmCataloger.parse(DB_PATH, fixture.sqlite);
  });
  afterAll(() => fixture?.cleanup());

  it('built the packages the test expects (sanity check of the fixture)', () => {
    expect(fixture.packages.map((q) => q.NAME).sort()).toEqual(['vigil-foo', 'vigil-hello', 'vigil-libfoo']);
    expect(fixture.installedNames).toEqual(['gpg-pubkey', 'vigil-foo', 'vigil-hello', 'vigil-libfoo']);
  });

  it('reports every package rpm -qa lists, except the gpg-pubkey pseudo-package', () => {
    expect(packages.map((p) => p.name).sort()).toEqual(fixture.installedNames.filter((n) => n !== 'gpg-pubkey'));
    expect(packages).toHaveLength(3);
  });

  it('agrees with rpm -qp on name, epoch:version-release, arch, license, source rpm, size and vendor', () => {
    for (const query of fixture.packages) {
      const pkg = byName(query.NAME);
      expect(pkg, query.NAME).toBeDefined();
      expect(pkg).toMatchObject(expectedFromQuery(query));
      expect(pkg.type).toBe('rpm');
      expect(pkg.locations).toEqual([DB_PATH]);
    }
  });

  it('reads the concrete values of the specs', () => {
    const hello = byName('vigil-hello');
    expect(hello.version).toBe('2:1.2.3-4.fc99');
    expect(hello.licenses).toEqual(['MIT AND Apache-2.0']);
    expect(hello.origin).toBe('vigil-hello');
    expect(hello.metadata).toMatchObject({ epoch: 2, architecture: 'noarch', vendor: 'Vigil Test Vendor' });
    expect(hello.metadata.sourceRpm).toBe('vigil-hello-1.2.3-4.fc99.src.rpm');
    expect(hello.size).toBe(6); // "hello\n"

    const lib = byName('vigil-libfoo');
    expect(lib.version).toBe('0.9.1-1.el9');
    expect(lib.licenses).toEqual(['LGPL-2.1-only']);
    expect(lib.origin).toBe('vigil-foo');
    expect(lib.metadata.sourceRpm).toBe('vigil-foo-0.9.1-1.el9.src.rpm');
    expect(lib.metadata).not.toHaveProperty('epoch');
    expect(lib.metadata).not.toHaveProperty('vendor');
    expect(lib.size).toBe('library data, somewhat longer\n'.length);
    expect(lib.metadata.architecture).not.toBe('noarch');
    expect(byName('vigil-foo').origin).toBe('vigil-foo');
    expect(byName('vigil-foo').licenses).toEqual(['GPL-2.0-or-later']);
  });

  it('gives CPEs and a distro-less purl before finalize', () => {
    const hello = byName('vigil-hello');
    expect(hello.purl).toBe('pkg:rpm/vigil-hello@1.2.3-4.fc99?arch=noarch&epoch=2');
    expect(hello.cpes).toEqual(['cpe:2.3:a:vigil-hello:vigil-hello:2\\:1.2.3-4.fc99:*:*:*:*:*:*:*']);
  });

  it('finalize puts the distro in the purl namespace and qualifier, with the epoch as a qualifier', () => {
    const finalized = rpmCataloger.finalize!(packages, { name: 'rhel', version: '9.3', like: ['fedora'] });
    const hello = finalized.find((p) => p.name === 'vigil-hello')!;
    expect(hello.purl).toBe('pkg:rpm/rhel/vigil-hello@1.2.3-4.fc99?arch=noarch&distro=rhel-9.3&epoch=2');
    const lib = finalized.find((p) => p.name === 'vigil-libfoo')!;
    expect(lib.purl).toBe(`pkg:rpm/rhel/vigil-libfoo@0.9.1-1.el9?arch=${String(lib.metadata.architecture)}&distro=rhel-9.3`);
    expect(rpmCataloger.finalize!(packages, undefined).find((p) => p.name === 'vigil-hello')!.purl).toBe(hello.purl.replace('rhel/', '').replace('&distro=rhel-9.3', ''));
  });

  it('leaves the caller’s buffer alone and reads WAL- and rollback-journal-flagged files alike', async () => {
    const before = Buffer.from(fixture.sqlite);
    await rpmCataloger.parse(DB_PATH, fixture.sqlite);
    expect(fixture.sqlite.equals(before)).toBe(true);
    for (const mode of [1, 2]) {
      const copy = Buffer.from(fixture.sqlite);
      copy[18] = mode;
      copy[19] = mode;
      expect((await rpmCataloger.parse(DB_PATH, copy)).map((p) => p.version).sort(), `format ${mode}`).toEqual(
        packages.map((p) => p.version).sort(),
      );
    }
  });

  it('skips a truncated header blob in the database and keeps the others', async () => {
    const copy = Buffer.from(fixture.sqlite);
    copy[18] = 1;
    copy[19] = 1;
    const db = new Database(copy);
    const first = db.prepare('SELECT blob FROM Packages ORDER BY hnum LIMIT 1').get() as { blob: Buffer };
    db.prepare('INSERT INTO Packages (blob) VALUES (?)').run(first.blob.subarray(0, first.blob.length - 40));
    db.prepare('INSERT INTO Packages (blob) VALUES (?)').run(Buffer.from('not a header at all'));
    const damaged = db.serialize();
    db.close();
    const found = await rpmCataloger.parse(DB_PATH, damaged);
    expect(found.map((p) => p.name).sort()).toEqual(packages.map((p) => p.name).sort());
  });

  it('parses the real header blobs directly: the region tag comes first and values decode', () => {
    const blobs = readRpmdbSqliteBlobs(fixture.sqlite);
    expect(blobs).toHaveLength(4);
    for (const blob of blobs) {
      const header = parseRpmHeader(blob);
      const first = header.entries.values().next().value!;
      expect(first.tag).toBe(63); // RPMTAG_HEADERIMMUTABLE
      expect(first.type).toBe(RpmType.BIN);
      expect(header.string(RPMTAG.NAME)).toMatch(/^(vigil-|gpg-pubkey)/);
    }
  });

  it('does not throw on any truncation of a real header blob', () => {
    const blob = readRpmdbSqliteBlobs(fixture.sqlite)[0]!;
    for (let length = 0; length < blob.length; length += 7) {
      expect(() => rpmPackageFromHeader(blob.subarray(0, length), DB_PATH)).not.toThrow();
      expect(rpmPackageFromHeader(blob.subarray(0, length), DB_PATH)).toBeUndefined();
    }
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg', 'perl'))('rpm cataloger on a Berkeley DB Packages file (rpm < 4.16)', () => {
  const BDB_PATH = '/var/lib/rpm/Packages';
  let fixture: RpmdbFixture;
  let blobs: Buffer[];
  let fromSqlite: CatalogedPackage[];
  /** What must not differ between the two database formats. */
  // What the database says: not where it was read from, nor how long reading the file lists took.
  const essentials = (pkgs: CatalogedPackage[]) =>
    pkgs.map(({ locations: _locations, ownershipMs: _ms, ...rest }) => rest).sort((a, b) => a.name.localeCompare(b.name));

  beforeAll(async () => {
    fixture = buildRpmdbFixture(SPECS);
    blobs = readRpmdbSqliteBlobs(fixture.sqlite);
    fromSqlite = await rpmCataloger.parse(DB_PATH, fixture.sqlite);
  });
  afterAll(() => fixture?.cleanup());

  // 4096: headers on overflow pages; 512: each header spans many overflow pages; 65536: headers inline on hash
  // pages; big-endian: a database written on a big-endian host (s390x, ppc64).
  const layouts = [
    { pageSize: 4096, bigEndian: false },
    { pageSize: 512, bigEndian: false },
    { pageSize: 65536, bigEndian: false },
    { pageSize: 4096, bigEndian: true },
  ];
  for (const layout of layouts) {
    it(`reads the same packages as from SQLite (page size ${layout.pageSize}${layout.bigEndian ? ', big-endian' : ''})`, async () => {
      const file = buildBerkeleyPackagesFile(blobs, layout);
      const values = readBerkeleyHashValues(file);
      // every header, byte for byte, plus rpm's 4-byte instance counter under key 0
      expect(values).toHaveLength(blobs.length + 1);
      for (const blob of blobs) expect(values.some((v) => v.equals(blob))).toBe(true);
      const found = await rpmCataloger.parse(BDB_PATH, file);
      expect(found.every((p) => p.locations[0] === BDB_PATH)).toBe(true);
      expect(essentials(found)).toEqual(essentials(fromSqlite));
    });
  }

  it('finds every record of a database spread over many hash and overflow pages', () => {
    const many = Array.from({ length: 300 }, (_, i) => blobs[i % blobs.length]!);
    const file = buildBerkeleyPackagesFile(many, { pageSize: 4096 });
    expect(readBerkeleyHashValues(file)).toHaveLength(301);
  });

  it('survives truncation and damaged overflow chains without throwing', () => {
    const file = buildBerkeleyPackagesFile(blobs, { pageSize: 512 });
    for (let length = 0; length <= file.length; length += 256) {
      expect(() => rpmCataloger.parse(BDB_PATH, file.subarray(0, length))).not.toThrow();
    }
    // Point every overflow page's next_pgno back at itself: chains become cycles.
    const cyclic = Buffer.from(file);
    for (let page = 1; (page + 1) * 512 <= cyclic.length; page++) {
      if (cyclic[page * 512 + 25] === 7) cyclic.writeUInt32LE(page, page * 512 + 16);
    }
    // only the inline 4-byte counter survives; no header is read from a looping chain
    expect(readBerkeleyHashValues(cyclic).map((v) => v.length)).toEqual([4]);
    expect(rpmCataloger.parse(BDB_PATH, cyclic)).toEqual([]);
  });

  it('returns [] for content that is not an unencrypted hash database', () => {
    expect(readBerkeleyHashValues(Buffer.alloc(0))).toEqual([]);
    expect(readBerkeleyHashValues(Buffer.alloc(8192, 0x5a))).toEqual([]);
    const encrypted = buildBerkeleyPackagesFile(blobs, { pageSize: 4096 });
    encrypted[24] = 1; // encrypt_alg
    expect(readBerkeleyHashValues(encrypted)).toEqual([]);
    const badPageSize = buildBerkeleyPackagesFile(blobs, { pageSize: 4096 });
    badPageSize.writeUInt32LE(3000, 20);
    expect(readBerkeleyHashValues(badPageSize)).toEqual([]);
  });
});

describe('rpm cataloger on malformed input', () => {
  it('matches only the rpmdb locations of its three formats', () => {
    expect(rpmCataloger.matches('/var/lib/rpm/rpmdb.sqlite')).toBe(true);
    expect(rpmCataloger.matches('/usr/lib/sysimage/rpm/rpmdb.sqlite')).toBe(true);
    expect(rpmCataloger.matches('/var/lib/rpm/rpmdb.sqlite-wal')).toBe(false);
    expect(rpmCataloger.matches('/var/lib/rpm/Packages')).toBe(true);
    expect(rpmCataloger.matches('/usr/lib/sysimage/rpm/Packages')).toBe(true);
    expect(rpmCataloger.matches('/usr/lib/sysimage/rpm/Packages.db')).toBe(true);
    expect(rpmCataloger.matches('/var/lib/rpm/Packages.db')).toBe(true);
    expect(rpmCataloger.matches('/var/lib/rpm/Index.db')).toBe(false);
    expect(rpmCataloger.matches('/var/lib/rpm/Name')).toBe(false);
    expect(rpmCataloger.matches('/opt/var/lib/rpm/rpmdb.sqlite')).toBe(false);
  });

  it('returns [] for garbage, empty, truncated SQLite and SQLite without a Packages table', async () => {
    expect(await rpmCataloger.parse(DB_PATH, Buffer.alloc(0))).toEqual([]);
    expect(await rpmCataloger.parse(DB_PATH, Buffer.from('garbage bytes, definitely not sqlite'.repeat(20)))).toEqual([]);
    const other = new Database(':memory:');
    other.exec('CREATE TABLE Unrelated (x INTEGER)');
    const otherBytes = other.serialize();
    other.close();
    expect(await rpmCataloger.parse(DB_PATH, otherBytes)).toEqual([]);
    const sqliteHeaderOnly = Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(200, 0xff)]);
    expect(await rpmCataloger.parse(DB_PATH, sqliteHeaderOnly)).toEqual([]);
    expect(await rpmCataloger.parse(DB_PATH, otherBytes.subarray(0, 150))).toEqual([]);
  });

  it('returns [] when the Packages blobs are not headers', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE Packages (hnum INTEGER PRIMARY KEY AUTOINCREMENT, blob BLOB NOT NULL)');
    db.prepare('INSERT INTO Packages (blob) VALUES (?)').run(Buffer.from([0, 0, 0, 1]));
    db.prepare('INSERT INTO Packages (blob) VALUES (?)').run(Buffer.alloc(64, 0xff));
    db.prepare('INSERT INTO Packages (blob) VALUES (?)').run('a text value');
    const bytes = db.serialize();
    db.close();
    expect(await rpmCataloger.parse(DB_PATH, bytes)).toEqual([]);
  });
});

describe('parseRpmHeader', () => {
  const basic = [
    { tag: RPMTAG.NAME, type: RpmType.STRING, value: 'bash' },
    { tag: RPMTAG.VERSION, type: RpmType.STRING, value: '5.1.8' },
    { tag: RPMTAG.RELEASE, type: RpmType.STRING, value: '9.el9' },
  ];

  it('decodes every value type, with or without the .rpm header magic', () => {
    const entries = [
      ...basic,
      { tag: 1004, type: RpmType.I18NSTRING, value: ['The GNU Bourne Again shell', 'Die GNU-Shell'] },
      { tag: 1027, type: RpmType.STRING_ARRAY, value: ['/usr/bin/bash', '/usr/bin/sh'] },
      { tag: 1030, type: RpmType.INT16, value: [0o100755, 0o120777] },
      { tag: RPMTAG.SIZE, type: RpmType.INT32, value: [7_738_934] },
      { tag: RPMTAG.LONGSIZE, type: RpmType.INT64, value: [5_000_000_000] },
      { tag: 1016, type: RpmType.INT8, value: [1, 2, 255] },
      { tag: 261, type: RpmType.BIN, value: Buffer.from([0xde, 0xad, 0xbe, 0xef]) },
    ];
    for (const withMagic of [false, true]) {
      const header = parseRpmHeader(buildRpmHeaderBlob(entries, { withMagic }));
      expect(header.string(RPMTAG.NAME)).toBe('bash');
      expect(header.get(1004)).toEqual(['The GNU Bourne Again shell', 'Die GNU-Shell']);
      expect(header.string(1004)).toBe('The GNU Bourne Again shell');
      expect(header.get(1027)).toEqual(['/usr/bin/bash', '/usr/bin/sh']);
      expect(header.get(1030)).toEqual([0o100755, 0o120777]);
      expect(header.number(RPMTAG.SIZE)).toBe(7_738_934);
      expect(header.number(RPMTAG.LONGSIZE)).toBe(5_000_000_000);
      expect(header.get(1016)).toEqual([1, 2, 255]);
      expect(header.get(261)).toEqual(Buffer.from([0xde, 0xad, 0xbe, 0xef]));
      expect(header.get(RPMTAG.EPOCH)).toBeUndefined();
      expect(header.number(RPMTAG.NAME)).toBeUndefined();
    }
  });

  it('prefers LONGSIZE over SIZE and lets a later (install-time) entry override an earlier one', () => {
    const blob = buildRpmHeaderBlob([
      ...basic,
      { tag: RPMTAG.SIZE, type: RpmType.INT32, value: [1] },
      { tag: RPMTAG.LONGSIZE, type: RpmType.INT64, value: [5_000_000_000] },
      { tag: RPMTAG.SOURCERPM, type: RpmType.STRING, value: 'bash-5.1.8-9.el9.src.rpm' },
      { tag: RPMTAG.ARCH, type: RpmType.STRING, value: 'x86_64' },
      { tag: RPMTAG.RELEASE, type: RpmType.STRING, value: '9.el9_2' },
    ]);
    const pkg = rpmPackageFromHeader(blob, DB_PATH)!;
    expect(pkg).toMatchObject({ name: 'bash', version: '5.1.8-9.el9_2', size: 5_000_000_000, origin: 'bash', licenses: [] });
    expect(pkg.purl).toBe('pkg:rpm/bash@5.1.8-9.el9_2?arch=x86_64');
  });

  it('skips gpg-pubkey and headers without a name or version', () => {
    expect(rpmPackageFromHeader(buildRpmHeaderBlob([{ tag: RPMTAG.NAME, type: RpmType.STRING, value: 'gpg-pubkey' }, ...basic.slice(1)]), DB_PATH)).toBeUndefined();
    expect(rpmPackageFromHeader(buildRpmHeaderBlob(basic.slice(1)), DB_PATH)).toBeUndefined();
    expect(rpmPackageFromHeader(buildRpmHeaderBlob([basic[0]!]), DB_PATH)).toBeUndefined();
  });

  it('rejects structurally broken headers with RpmHeaderError', () => {
    const good = buildRpmHeaderBlob(basic);
    expect(() => parseRpmHeader(Buffer.alloc(4))).toThrow(RpmHeaderError);
    expect(() => parseRpmHeader(good.subarray(0, good.length - 1))).toThrow(/truncated/);
    const zeroEntries = Buffer.from(good);
    zeroEntries.writeUInt32BE(0, 0);
    expect(() => parseRpmHeader(zeroEntries)).toThrow(/index count/);
    const hugeCount = Buffer.from(good);
    hugeCount.writeUInt32BE(0x7fffffff, 0);
    expect(() => parseRpmHeader(hugeCount)).toThrow(/index count/);
    const badType = Buffer.from(good);
    badType.writeUInt32BE(42, 8 + 4);
    expect(() => parseRpmHeader(badType)).toThrow(/unknown type/);
    const badOffset = Buffer.from(good);
    badOffset.writeInt32BE(100_000, 8 + 8);
    expect(() => parseRpmHeader(badOffset)).toThrow(/offset/);
    const misaligned = buildRpmHeaderBlob([...basic, { tag: RPMTAG.EPOCH, type: RpmType.INT32, value: [1] }]);
    misaligned.writeUInt32BE(misaligned.readUInt32BE(8 + 3 * 16 + 8) + 1, 8 + 3 * 16 + 8);
    expect(() => parseRpmHeader(misaligned)).toThrow(/misaligned/);
  });

  it('reports an unterminated string when the value is read, and the cataloger skips such a header', () => {
    const blob = buildRpmHeaderBlob(basic);
    const cut = Buffer.from(blob);
    cut[cut.length - 1] = 0x41; // overwrite the last string's NUL terminator
    const header = parseRpmHeader(cut);
    expect(() => header.get(RPMTAG.RELEASE)).toThrow(/unterminated/);
    expect(rpmPackageFromHeader(cut, DB_PATH)).toBeUndefined();
  });
});

describe('sourceRpmName', () => {
  it('strips -version-release.src.rpm', () => {
    expect(sourceRpmName('glibc-2.34-60.el9.src.rpm')).toBe('glibc');
    expect(sourceRpmName('python3-pip-21.3.1-1.fc39.src.rpm')).toBe('python3-pip');
    expect(sourceRpmName('kernel-5.14.0-362.8.1.el9_3.nosrc.rpm')).toBe('kernel');
    expect(sourceRpmName(undefined)).toBeUndefined();
    expect(sourceRpmName('(none)')).toBeUndefined();
    expect(sourceRpmName('odd.src.rpm')).toBeUndefined();
  });
});
