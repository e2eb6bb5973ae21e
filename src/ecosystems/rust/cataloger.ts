/**
 * Rust catalogers: the crates a project's `Cargo.lock` pins, and the crates compiled into executables built with
 * `cargo auditable` (their `.dep-v0` section).
 *
 * Only third-party crates are packages: a lock entry without `source` and an audit entry with source `local` are
 * the workspace's own crates, which no advisory describes. Build-only dependencies of a binary (build scripts,
 * proc macros) ran on the build machine and are not in the executable, so they are not listed for it.
 */
import { cpe23, purl } from '../shared/identifiers.js';
import type { CatalogedPackage, Cataloger } from '../model.js';
import { readAuditedCrates } from './cargo-auditable.js';
import { parseCargoLock } from './cargo-lock.js';
import { isExecutableCandidate } from '../shared/executable-paths.js';

const CARGO_LOCK = /(?:^|\/)Cargo\.lock$/;
/** Cargo's download caches hold published crates' own lock files, which describe their authors' builds. */
const CARGO_CACHE = /\/\.cargo\/(?:registry|git)\//;

export function isProjectCargoLock(path: string): boolean {
  return CARGO_LOCK.test(path) && !CARGO_CACHE.test(path);
}

function rustPackage(name: string, version: string, location: string, metadata: Record<string, unknown>): CatalogedPackage {
  let packageUrl = '';
  try {
    packageUrl = purl('cargo', undefined, name, version);
  } catch {
    // Names come from the image: one the purl library rejects must not lose the package.
  }
  return { name, version, type: 'rust', locations: [location], licenses: [], purl: packageUrl, cpes: [cpe23(name, name, version)], metadata };
}

export function parseCargoLockPackages(path: string, content: Buffer): CatalogedPackage[] {
  return parseCargoLock(content)
    .filter((e) => e.source !== undefined)
    .map((e) =>
      rustPackage(e.name, e.version, path, {
        source: e.source,
        ...(e.checksum ? { checksum: e.checksum } : {}),
        ...(e.dependencies.length ? { dependencies: e.dependencies } : {}),
      }),
    );
}

export function parseAuditableBinary(path: string, content: Buffer): CatalogedPackage[] {
  const crates = readAuditedCrates(content) ?? [];
  return crates
    .filter((c) => c.source !== 'local' && c.kind === 'runtime')
    .map((c) => rustPackage(c.name, c.version, path, { source: c.source, ...(c.root ? { root: true } : {}) }));
}

export const rustCargoLockCataloger: Cataloger = {
  name: 'rust-cargo-lock',
  // Lock files of the largest workspaces are well under a megabyte.
  maxFileBytes: 16 * 1024 * 1024,
  matches: isProjectCargoLock,
  parse(path, content) {
    try {
      return parseCargoLockPackages(path, content);
    } catch {
      // The parser is written not to throw; this guards the image walk against a bug on one odd file.
      return [];
    }
  },
};

export const rustBinaryCataloger: Cataloger = {
  name: 'rust-binary',
  maxFileBytes: 512 * 1024 * 1024,
  matches: isExecutableCandidate,
  parse(path, content) {
    try {
      return parseAuditableBinary(path, content);
    } catch {
      return [];
    }
  },
};
