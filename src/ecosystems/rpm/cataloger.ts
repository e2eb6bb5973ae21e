/**
 * Red Hat family packages (RHEL, CentOS, Fedora, Rocky, Alma, Amazon Linux, SUSE, ...) from rpm's database in
 * any of its three formats: rpmdb.sqlite, the default since rpm 4.16 (Fedora 33, RHEL 9); rpm's own ndb
 * `Packages.db` (rpm-ndb.ts), which SLE 15 SP3+ and openSUSE Leap 15.3+/Tumbleweed use; or the Berkeley DB
 * `Packages` file before both (rpm-bdb.ts). Either way each record is one rpm header blob, decoded by rpm-header.ts.
 */
import Database from 'better-sqlite3';
import { distroQualifier } from '../distro.js';
import { cpe23, purl } from '../shared/identifiers.js';
import type { CatalogedPackage, Cataloger, DistroInfo } from '../model.js';
import { collectOwnershipKeys, type OwnershipKey } from '../shared/ownership-keys.js';
import { readBerkeleyHashValues } from './berkeley-db.js';
import { RPMTAG, parseRpmHeader, type RpmHeader } from './header.js';
import { isNdbPackages, readNdbPackageBlobs } from './ndb.js';

const RPMDB_PATHS = new Set([
  '/var/lib/rpm/rpmdb.sqlite',
  '/usr/lib/sysimage/rpm/rpmdb.sqlite',
  '/var/lib/rpm/Packages',
  '/usr/lib/sysimage/rpm/Packages',
  '/var/lib/rpm/Packages.db',
  '/usr/lib/sysimage/rpm/Packages.db',
]);

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** Header bytes 18/19: file format write/read version, 1 = rollback journal, 2 = WAL. */
const SQLITE_FORMAT_VERSION_OFFSETS = [18, 19];

/**
 * An in-memory copy of the database that SQLite will open. rpm keeps its database in WAL mode, and SQLite refuses
 * to open a deserialized WAL database (the in-memory VFS has no shared memory for the WAL index). We only ever
 * have the main file, not its -wal sidecar, so marking the copy as rollback-journal loses nothing.
 */
function openableCopy(content: Buffer): Buffer {
  const copy = Buffer.from(content);
  for (const offset of SQLITE_FORMAT_VERSION_OFFSETS) if (copy[offset] === 2) copy[offset] = 1;
  return copy;
}

function isSqlite(content: Buffer): boolean {
  return content.length >= 100 && content.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC);
}

/**
 * The header blobs of an rpm database of any of the three formats, told apart by its first bytes rather than its
 * name: SQLite and ndb start with their magic, Berkeley DB keeps its magic at byte 12 (rpm-bdb.ts checks it).
 */
export function readRpmdbBlobs(content: Buffer): Buffer[] {
  if (isSqlite(content)) return readRpmdbSqliteBlobs(content);
  if (isNdbPackages(content)) return readNdbPackageBlobs(content);
  return readBerkeleyHashValues(content);
}

/** The header blobs of an rpmdb.sqlite, or [] when the content is not a readable rpm SQLite database. */
export function readRpmdbSqliteBlobs(content: Buffer): Buffer[] {
  if (!isSqlite(content)) return [];
  const blobs: Buffer[] = [];
  let db: Database.Database | undefined;
  try {
    db = new Database(openableCopy(content), { readonly: true });
    for (const row of db.prepare('SELECT blob FROM Packages ORDER BY hnum').raw().iterate()) {
      const blob = (row as unknown[])[0];
      if (Buffer.isBuffer(blob)) blobs.push(blob);
    }
  } catch {
    // Not an rpm database, or corrupt from some page on: keep whatever was read before the damage.
  } finally {
    db?.close();
  }
  return blobs;
}

/** "glibc-2.34-60.el9.src.rpm" -> "glibc": the name is what precedes the last two dash-separated fields. */
export function sourceRpmName(sourceRpm: string | undefined): string | undefined {
  const base = sourceRpm?.replace(/\.(no)?src\.rpm$/, '');
  if (!base || base === sourceRpm) return undefined;
  const parts = base.split('-');
  return parts.length >= 3 ? parts.slice(0, -2).join('-') : undefined;
}

/** The paths of the header's files: DIRNAMES[DIRINDEXES[i]] + BASENAMES[i], or OLDFILENAMES in old headers. */
export function* rpmFilePaths(header: RpmHeader): Generator<string> {
  const basenames = header.strings(RPMTAG.BASENAMES);
  if (basenames.length === 0) {
    yield* header.strings(RPMTAG.OLDFILENAMES);
    return;
  }
  const dirnames = header.strings(RPMTAG.DIRNAMES);
  const dirindexes = header.numbers(RPMTAG.DIRINDEXES);
  for (let i = 0; i < basenames.length; i++) {
    const dir = dirnames[dirindexes[i] ?? -1];
    if (dir !== undefined) yield dir + basenames[i];
  }
}

/**
 * The ownership keys of the header's files (ownership.ts). A broken file list loses ownership, never the package:
 * the package is then simply matched as if it owned nothing.
 */
function ownedKeys(header: RpmHeader, ownershipKey: OwnershipKey | undefined): string[] {
  if (!ownershipKey) return [];
  try {
    return [...collectOwnershipKeys(rpmFilePaths(header), ownershipKey)];
  } catch {
    return [];
  }
}

/** Decodes one header blob into a package; undefined for malformed headers and gpg-pubkey pseudo-packages. */
export function rpmPackageFromHeader(blob: Buffer, path: string, ownershipKey?: OwnershipKey): CatalogedPackage | undefined {
  try {
    const header = parseRpmHeader(blob);
    const name = header.string(RPMTAG.NAME);
    const upstreamVersion = header.string(RPMTAG.VERSION);
    // gpg-pubkey entries are imported signing keys that rpm records as packages.
    if (!name || !upstreamVersion || name === 'gpg-pubkey') return undefined;
    const release = header.string(RPMTAG.RELEASE);
    const epoch = header.number(RPMTAG.EPOCH);
    const arch = header.string(RPMTAG.ARCH);
    const sourceRpm = header.string(RPMTAG.SOURCERPM);
    const license = header.string(RPMTAG.LICENSE);
    const vendor = header.string(RPMTAG.VENDOR);
    const size = header.number(RPMTAG.LONGSIZE) ?? header.number(RPMTAG.SIZE);
    const versionRelease = release ? `${upstreamVersion}-${release}` : upstreamVersion;
    const version = epoch !== undefined ? `${epoch}:${versionRelease}` : versionRelease;
    const origin = sourceRpmName(sourceRpm);
    const started = performance.now();
    const ownedPaths = ownedKeys(header, ownershipKey);
    const ownershipMs = performance.now() - started;
    const metadata: Record<string, unknown> = { version: upstreamVersion };
    if (release) metadata.release = release;
    if (epoch !== undefined) metadata.epoch = epoch;
    if (arch) metadata.architecture = arch;
    if (sourceRpm) metadata.sourceRpm = sourceRpm;
    if (vendor) metadata.vendor = vendor;
    return {
      name,
      version,
      type: 'rpm',
      locations: [path],
      licenses: license ? [license] : [],
      ...(origin ? { origin } : {}),
      ...(size !== undefined ? { size } : {}),
      purl: rpmPurl(name, metadata, undefined),
      cpes: [cpe23(name, name, version)],
      metadata,
      ...(ownedPaths.length > 0 ? { ownedPaths } : {}),
      ownershipMs,
    };
  } catch {
    return undefined;
  }
}

/**
 * `pkg:rpm/<distro>/<name>@<version>-<release>?arch=..&epoch=..&distro=..`. The epoch is a qualifier, not part
 * of the purl version. Without a known distro the namespace is left out rather than guessed.
 */
function rpmPurl(name: string, metadata: Record<string, unknown>, distro: DistroInfo | undefined): string {
  const { version, release, epoch, architecture } = metadata;
  const versionRelease = typeof release === 'string' && release ? `${String(version)}-${release}` : String(version);
  return purl('rpm', distro?.name, name, versionRelease, {
    arch: typeof architecture === 'string' ? architecture : undefined,
    epoch: typeof epoch === 'number' ? String(epoch) : undefined,
    distro: distroQualifier(distro),
  });
}

/** The rpm cataloger, reducing each package's file list with `ownershipKey` (registry.ts). */
export function createRpmCataloger(ownershipKey: OwnershipKey): Cataloger {
  return {
    name: 'rpm',
    // Container rpm databases are tens of MB; whole-system ones more. Reading SQLite briefly holds the content
    // three times (the walker's, our WAL-patched copy, SQLite's own), hence no higher.
    maxFileBytes: 256 * 1024 * 1024,
    matches(path) {
      return RPMDB_PATHS.has(path);
    },
    parse(path, content) {
      const packages: CatalogedPackage[] = [];
      for (const blob of readRpmdbBlobs(content)) {
        const pkg = rpmPackageFromHeader(blob, path, ownershipKey);
        if (pkg) packages.push(pkg);
      }
      return packages;
    },
    finalize(packages, distro) {
      return packages.map((pkg) => ({ ...pkg, purl: rpmPurl(pkg.name, pkg.metadata, distro) }));
    },
  };
}
