/**
 * rpm's ndb `Packages.db` (SLE 15 SP3+, openSUSE Leap 15.3+, Tumbleweed). The header blobs are real: rpmbuild
 * builds the packages and rpm registers them in an rpmdb.sqlite; `buildNdbPackagesFile` then lays those blobs out
 * in ndb form (Debian's rpm has no ndb backend, see fixtures/rpmdb.ts). Needs rpm and gnupg (Debian packages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectDistro } from '../../../../src/ecosystems/distro.js';
import { readRpmdbBlobs, readRpmdbSqliteBlobs } from '../../../../src/ecosystems/rpm/cataloger.js';
import { readNdbPackageBlobs } from '../../../../src/ecosystems/rpm/ndb.js';
import { catalogerNamed } from '../../../../src/ecosystems/registry.js';
import type { CatalogedPackage } from '../../../../src/ecosystems/model.js';
import { buildNdbPackagesFile, buildRpmdbFixture, noarchRpmSpec, type RpmdbFixture } from './testdata/rpmdb.js';
import { missingTools } from '../../../support/tools.js';

const rpmCataloger = catalogerNamed('rpm');

const NDB_PATH = '/usr/lib/sysimage/rpm/Packages.db';

const SUSE = { license: 'OpenSSL', vendor: 'SUSE LLC <https://www.suse.com/>' };

/** SLE 15 SP5-shaped releases: openssl-1_1 and zlib build only their library subpackages; timezone has an epoch. */
const SLE15_SPECS = {
  'openssl-1_1': noarchRpmSpec({ ...SUSE, name: 'openssl-1_1', version: '1.1.1l', release: '150500.17.22.1', subpackage: 'libopenssl1_1' }),
  zlib: noarchRpmSpec({ ...SUSE, name: 'zlib', version: '1.2.13', release: '150500.4.3.1', subpackage: 'libz1' }),
  timezone: noarchRpmSpec({ ...SUSE, name: 'timezone', epoch: 3, version: '2024a', release: '150000.75.28.1' }),
};

const OS_RELEASE = {
  sles: 'NAME="SLES"\nVERSION="15-SP5"\nVERSION_ID="15.5"\nPRETTY_NAME="SUSE Linux Enterprise Server 15 SP5"\nID="sles"\nID_LIKE="suse"\nANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:15:sp5"\n',
  leap: 'NAME="openSUSE Leap"\nVERSION="15.5"\nID="opensuse-leap"\nID_LIKE="suse opensuse"\nVERSION_ID="15.5"\nPRETTY_NAME="openSUSE Leap 15.5"\nCPE_NAME="cpe:/o:opensuse:leap:15.5"\n',
};

let fixture: RpmdbFixture;
/** The header blobs rpm itself wrote, in install order (rpmdb.sqlite's hnum). */
let blobs: Buffer[];
let ndb: Buffer;

beforeAll(() => {
  fixture = buildRpmdbFixture(SLE15_SPECS);
  blobs = readRpmdbSqliteBlobs(fixture.sqlite);
  ndb = buildNdbPackagesFile(blobs);
});
afterAll(() => fixture?.cleanup());

const sameBlobs = (actual: Buffer[], expected: Buffer[]) => expect(actual.map((b) => b.toString('hex'))).toEqual(expected.map((b) => b.toString('hex')));

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('ndb Packages.db reader', () => {
  it('returns every header rpm wrote, byte for byte, in package-index order', () => {
    expect(blobs).toHaveLength(4); // libopenssl1_1, libz1, timezone, gpg-pubkey
    sameBlobs(readNdbPackageBlobs(ndb), blobs);
  });

  it('follows the slot table: extra slot pages, table order unlike block order, holes left by erased packages', () => {
    const relaid = buildNdbPackagesFile(blobs, { slotPages: 3, slotsFromEnd: true, erased: [1] });
    sameBlobs(readNdbPackageBlobs(relaid), blobs.filter((_, i) => i !== 1));
  });

  it('is chosen by content, not by file name', () => {
    sameBlobs(readRpmdbBlobs(ndb), blobs);
    expect(rpmCataloger.matches(NDB_PATH)).toBe(true);
    expect(rpmCataloger.matches('/var/lib/rpm/Packages.db')).toBe(true);
    expect(rpmCataloger.matches('/var/lib/rpm/Packages.db-journal')).toBe(false);
  });
});

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('rpm cataloger on a SUSE-like Packages.db', () => {
  let packages: CatalogedPackage[];
  const byName = (name: string) => packages.find((p) => p.name === name)!;

  beforeAll(async () => {
    packages = await rpmCataloger.parse(NDB_PATH, ndb);
  });

  it('reports what rpm -qp says of each built package, without the gpg-pubkey', () => {
    expect(packages.map((p) => p.name).sort()).toEqual(['libopenssl1_1', 'libz1', 'timezone']);
    expect(fixture.installedNames).toContain('gpg-pubkey');
    for (const q of fixture.packages) {
      const epoch = q.EPOCH === '(none)' ? '' : `${q.EPOCH}:`;
      expect(byName(q.NAME)).toMatchObject({
        version: `${epoch}${q.VERSION}-${q.RELEASE}`,
        type: 'rpm',
        locations: [NDB_PATH],
        metadata: { version: q.VERSION, release: q.RELEASE, sourceRpm: q.SOURCERPM, architecture: q.ARCH, vendor: q.VENDOR },
      });
    }
  });

  it('reads names, versions, epochs and source packages', () => {
    expect(byName('libopenssl1_1')).toMatchObject({ version: '1.1.1l-150500.17.22.1', origin: 'openssl-1_1' });
    expect(byName('libopenssl1_1').metadata).toMatchObject({ sourceRpm: 'openssl-1_1-1.1.1l-150500.17.22.1.src.rpm' });
    expect(byName('libopenssl1_1').metadata).not.toHaveProperty('epoch');
    expect(byName('libz1')).toMatchObject({ version: '1.2.13-150500.4.3.1', origin: 'zlib' });
    expect(byName('timezone')).toMatchObject({ version: '3:2024a-150000.75.28.1', origin: 'timezone', metadata: { epoch: 3 } });
  });

  it('SLES 15 SP5: purl namespace sles and distro sles-15.5, the epoch a qualifier', () => {
    const distro = detectDistro(new Map([['/etc/os-release', Buffer.from(OS_RELEASE.sles)]]));
    const finalized = rpmCataloger.finalize!(packages, distro);
    expect(finalized.map((p) => p.purl).sort()).toEqual([
      'pkg:rpm/sles/libopenssl1_1@1.1.1l-150500.17.22.1?arch=noarch&distro=sles-15.5',
      'pkg:rpm/sles/libz1@1.2.13-150500.4.3.1?arch=noarch&distro=sles-15.5',
      'pkg:rpm/sles/timezone@2024a-150000.75.28.1?arch=noarch&distro=sles-15.5&epoch=3',
    ]);
  });

  it('openSUSE Leap 15.5: purl namespace opensuse-leap', () => {
    const distro = detectDistro(new Map([['/etc/os-release', Buffer.from(OS_RELEASE.leap)]]));
    const timezone = rpmCataloger.finalize!(packages, distro).find((p) => p.name === 'timezone')!;
    expect(timezone.purl).toBe('pkg:rpm/opensuse-leap/timezone@2024a-150000.75.28.1?arch=noarch&distro=opensuse-leap-15.5&epoch=3');
  });
});

/** Offsets into the fixture: the header, the first slot, and the first blob (right after the one slot page). */
const SLOT0 = 32;
const BLOB0 = 4096;

function patched(content: Buffer, edit: (copy: Buffer) => void): Buffer {
  const copy = Buffer.from(content);
  edit(copy);
  return copy;
}

describe.skipIf(missingTools('rpm', 'rpmbuild', 'gpg'))('ndb reader on damaged input: never throws, keeps what is intact', () => {
  it('not an ndb file: empty, short, another magic, another format version, no slot pages', () => {
    expect(readNdbPackageBlobs(Buffer.alloc(0))).toEqual([]);
    expect(readNdbPackageBlobs(ndb.subarray(0, 31))).toEqual([]);
    expect(readNdbPackageBlobs(patched(ndb, (b) => b.write('RpmQ', 0, 'latin1')))).toEqual([]);
    expect(readNdbPackageBlobs(patched(ndb, (b) => b.writeUInt32LE(1, 4)))).toEqual([]);
    expect(readNdbPackageBlobs(patched(ndb, (b) => b.writeUInt32LE(0, 12)))).toEqual([]);
    expect(readRpmdbBlobs(patched(ndb, (b) => b.write('RpmQ', 0, 'latin1')))).toEqual([]);
  });

  it('truncated anywhere: the packages whose blobs are whole', () => {
    const ends: number[] = [];
    for (let i = 0, at = BLOB0; i < blobs.length; i++) {
      at += Math.ceil((16 + blobs[i]!.length + 12) / 16) * 16;
      ends.push(at);
    }
    for (const cut of [32, 100, 4095, BLOB0, BLOB0 + 20, ends[0]! - 1, ends[0]!, ends[1]! + 7, ndb.length - 1]) {
      const whole = ends.filter((end) => end <= cut).length;
      sameBlobs(readNdbPackageBlobs(ndb.subarray(0, cut)), blobs.slice(0, whole));
    }
  });

  it('a slot pointing past the end, into the slot table, or at a zero-length blob loses only that package', () => {
    const pastEnd = patched(ndb, (b) => b.writeUInt32LE(0xfffffff0, SLOT0 + 16 + 8));
    sameBlobs(readNdbPackageBlobs(pastEnd), [blobs[0]!, ...blobs.slice(2)]);
    const intoTable = patched(ndb, (b) => b.writeUInt32LE(1, SLOT0 + 8));
    sameBlobs(readNdbPackageBlobs(intoTable), blobs.slice(1));
    const hugeCount = patched(ndb, (b) => b.writeUInt32LE(0xffffffff, SLOT0 + 12));
    sameBlobs(readNdbPackageBlobs(hugeCount), blobs.slice(1));
    const noBlocks = patched(ndb, (b) => b.writeUInt32LE(0, SLOT0 + 12));
    sameBlobs(readNdbPackageBlobs(noBlocks), blobs.slice(1));
  });

  it('a blob whose head, length, tail or checksum is wrong is dropped, the rest kept', () => {
    const edits: ((b: Buffer) => void)[] = [
      (b) => b.write('BlbX', BLOB0, 'latin1'), // head magic
      (b) => b.writeUInt32LE(99, BLOB0 + 4), // package index differs from the slot's
      (b) => b.writeUInt32LE(blobs[0]!.length + 64, BLOB0 + 12), // length disagrees with the block count
      (b) => (b[BLOB0 + 16 + 40] ^= 0xff), // a header byte: the Adler-32 no longer matches
      (b) => b.write('BlbX', BLOB0 + Math.ceil((16 + blobs[0]!.length + 12) / 16) * 16 - 4, 'latin1'), // tail magic
    ];
    for (const edit of edits) sameBlobs(readNdbPackageBlobs(patched(ndb, edit)), blobs.slice(1));
  });

  it('a bad slot magic loses that slot only; an absurd slot-page count reads no blob from inside the claimed table', () => {
    sameBlobs(readNdbPackageBlobs(patched(ndb, (b) => b.write('Slou', SLOT0, 'latin1'))), blobs.slice(1));
    sameBlobs(readNdbPackageBlobs(patched(ndb, (b) => b.writeUInt32LE(0xffffffff, 12))), []);
  });

  it('half a million slots aimed at one large blob with a bad checksum: nothing read, one checksum pass', () => {
    // 2,048 slot pages (the cap), every slot pointing at the same 8 MiB blob, whose checksum is wrong.
    const slotPages = 2048;
    const tableBytes = slotPages * 4096;
    const length = 8 * 1024 * 1024;
    const blockCount = Math.ceil((16 + length + 12) / 16);
    const file = Buffer.alloc(tableBytes + blockCount * 16);
    file.write('RpmP', 0, 'latin1');
    file.writeUInt32LE(slotPages, 12);
    for (let at = 32; at < tableBytes; at += 16) {
      file.write('Slot', at, 'latin1');
      file.writeUInt32LE(1, at + 4);
      file.writeUInt32LE(tableBytes / 16, at + 8);
      file.writeUInt32LE(blockCount, at + 12);
    }
    file.write('BlbS', tableBytes, 'latin1');
    file.writeUInt32LE(1, tableBytes + 4);
    file.writeUInt32LE(length, tableBytes + 12);
    file.writeUInt32LE(length, file.length - 8);
    file.write('BlbE', file.length - 4, 'latin1');
    expect(readNdbPackageBlobs(file)).toEqual([]);
    // The same table with distinct package indexes: only the slot whose index the blob names can claim it.
    for (let at = 32, i = 1; at < tableBytes; at += 16, i++) file.writeUInt32LE(i, at + 4);
    expect(readNdbPackageBlobs(file)).toEqual([]);
  });

  it('random corruption never throws', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 300; round++) {
      const damaged = patched(ndb, (b) => {
        for (let n = 0; n < 8; n++) b[Math.floor(random() * b.length)] = Math.floor(random() * 256);
      });
      const read = readNdbPackageBlobs(damaged);
      expect(read.length).toBeLessThanOrEqual(blobs.length);
      expect(() => rpmCataloger.parse(NDB_PATH, damaged)).not.toThrow();
    }
  });
});
