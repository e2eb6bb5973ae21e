import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readAuditedCrates } from '../../../../src/ecosystems/rust/cargo-auditable.js';
import { MAX_CARGO_LOCK_PACKAGES, parseCargoLock } from '../../../../src/ecosystems/rust/cargo-lock.js';
import type { CatalogedPackage } from '../../../../src/ecosystems/model.js';
import { goBinaryCataloger } from '../../../../src/ecosystems/go/cataloger.js';
import { isProjectCargoLock, rustBinaryCataloger, rustCargoLockCataloger } from '../../../../src/ecosystems/rust/cataloger.js';
import { CARGO_LOCK, CRATES_IO, auditData, buildAuditableRustBinary, elfWithSections, type AuditedCrateSpec } from '../../../support/language-fixtures.js';
import { missingTools } from '../../../support/tools.js';

const AUDITED: AuditedCrateSpec[] = [
  { name: 'shop-api', version: '0.3.0', source: 'local', root: true, dependencies: [1, 2, 3] },
  { name: 'hyper', version: '0.14.10', source: 'crates.io', dependencies: [3] },
  { name: 'smallvec', version: '1.11.2', source: 'git' },
  { name: 'bytes', version: '1.5.0', source: 'crates.io' },
  { name: 'cc', version: '1.0.83', source: 'crates.io', kind: 'build' },
];

const parse = (cataloger: typeof rustBinaryCataloger, path: string, content: Buffer) => cataloger.parse(path, content) as CatalogedPackage[];
const purls = (pkgs: CatalogedPackage[]) => pkgs.map((p) => p.purl);

describe('Cargo.lock', () => {
  it('lists the third-party crates with their source, checksum and dependencies; the workspace crate is not one', () => {
    const pkgs = parse(rustCargoLockCataloger, '/src/shop/Cargo.lock', Buffer.from(CARGO_LOCK));
    expect(purls(pkgs)).toEqual(['pkg:cargo/bytes@1.5.0', 'pkg:cargo/hyper@0.14.10', 'pkg:cargo/smallvec@1.11.2', 'pkg:cargo/tokio@1.35.1']);
    expect(pkgs.every((p) => p.type === 'rust' && p.locations[0] === '/src/shop/Cargo.lock')).toBe(true);
    expect(pkgs[1]!.metadata).toEqual({
      source: CRATES_IO,
      checksum: '7728a72c4c7d72665fde02204bcbd93b247721025b222ef78606f14513e0fd03',
      dependencies: ['bytes', 'tokio 1.35.1'],
    });
    expect(pkgs[3]!.metadata.dependencies).toEqual(['bytes']);
    expect(pkgs[2]!.metadata.source).toMatch(/^git\+https:/);
  });

  it('reads only project lock files, not the ones in cargo download caches', () => {
    expect(isProjectCargoLock('/app/Cargo.lock')).toBe(true);
    expect(isProjectCargoLock('/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/ripgrep-14.1.0/Cargo.lock')).toBe(false);
    expect(isProjectCargoLock('/app/Cargo.lock.bak')).toBe(false);
  });

  it('yields nothing for garbage, binary content and other TOML, and stops at the entry limit', () => {
    for (const junk of ['', 'not toml at all', '[package]\nname = "x"\nversion = "1"\n', '\0\x01\x02', '[[package]]\nname = 5\nversion = "1.0.0"\n'])
      expect(rustCargoLockCataloger.parse('/Cargo.lock', Buffer.from(junk))).toEqual([]);
    const unterminated = Buffer.from('[[package]]\nname = "a"\nversion = "1.0.0"\nsource = "x"\ndependencies = [\n "b",\n');
    expect(rustCargoLockCataloger.parse('/Cargo.lock', unterminated)).toHaveLength(1);
    const huge = Buffer.from('[[package]]\nname = "a"\nversion = "1.0.0"\nsource = "registry+x"\n'.repeat(MAX_CARGO_LOCK_PACKAGES + 10));
    expect(parseCargoLock(huge)).toHaveLength(MAX_CARGO_LOCK_PACKAGES);
  });
});

describe('cargo-auditable binaries', () => {
  it('lists the runtime crates of the .dep-v0 section; local and build-only crates are not in it', () => {
    const elf = elfWithSections({ '.text': Buffer.alloc(32, 0x90), '.dep-v0': auditData(AUDITED) });
    const pkgs = parse(rustBinaryCataloger, '/usr/local/bin/shop-api', elf);
    expect(purls(pkgs)).toEqual(['pkg:cargo/hyper@0.14.10', 'pkg:cargo/smallvec@1.11.2', 'pkg:cargo/bytes@1.5.0']);
    expect(pkgs.map((p) => p.metadata.source)).toEqual(['crates.io', 'git', 'crates.io']);
    // A Rust binary has no Go build info.
    expect(goBinaryCataloger.parse('/usr/local/bin/shop-api', elf)).toEqual([]);
  });

  it('keeps the root crate when it came from crates.io (cargo install)', () => {
    const elf = elfWithSections({ '.dep-v0': auditData([{ name: 'ripgrep', version: '14.1.0', source: 'crates.io', root: true }]) });
    expect(rustBinaryCataloger.parse('/root/.cargo/bin/rg', elf)).toMatchObject([{ name: 'ripgrep', version: '14.1.0', metadata: { root: true } }]);
  });

  it('reads the section of an executable rustc linked', (ctx) => {
    if (missingTools('rustc')) return ctx.skip();
    const binary = buildAuditableRustBinary(AUDITED);
    expect(readAuditedCrates(binary)?.map((c) => `${c.name}@${c.version}`)).toEqual(AUDITED.map((c) => `${c.name}@${c.version}`));
    expect(purls(parse(rustBinaryCataloger, '/app/shop-api', binary))).toEqual(['pkg:cargo/hyper@0.14.10', 'pkg:cargo/smallvec@1.11.2', 'pkg:cargo/bytes@1.5.0']);
  }, 60_000);

  it('yields nothing for ELF files without audit data, corrupt sections and zip bombs', () => {
    expect(rustBinaryCataloger.parse('/bin/true', elfWithSections({ '.text': Buffer.alloc(16) }))).toEqual([]);
    expect(rustBinaryCataloger.parse('/bin/x', elfWithSections({ '.dep-v0': Buffer.from('not zlib') }))).toEqual([]);
    expect(rustBinaryCataloger.parse('/bin/x', elfWithSections({ '.dep-v0': deflateSync(Buffer.from('[1,2,3]')) }))).toEqual([]);
    const truncated = auditData(AUDITED).subarray(0, 20);
    expect(rustBinaryCataloger.parse('/bin/x', elfWithSections({ '.dep-v0': truncated }))).toEqual([]);
    // 64 MiB of zeros deflates to about 64 KiB: inflating stops at the output limit.
    const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024));
    expect(readAuditedCrates(elfWithSections({ '.dep-v0': bomb }))).toBeUndefined();
    expect(rustBinaryCataloger.parse('/bin/x', Buffer.from('#!/bin/sh\necho hi\n'))).toEqual([]);
  });
});
