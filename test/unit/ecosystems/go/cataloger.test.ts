import { offlineGoEnv, writeModuleProxy } from '../../../support/go-build.js';
import { missingTools, requireTool } from '../../../support/tools.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goBinaryCataloger, goModuleCpes, goPackages } from '../../../../src/ecosystems/go/cataloger.js';
import { readGoBuildInfo } from '../../../../src/ecosystems/go/buildinfo.js';
import { parseGoModInfo } from '../../../../src/ecosystems/go/modinfo.js';

/**
 * Real binaries are built with the Go toolchain, fully offline: the main module requires a local module through
 * `replace ... => ../dep` and a versioned module served from a `file://` GOPROXY written here, so the build info
 * has a replacement and an h1: sum.
 */
interface Built {
  dir: string;
  full: Buffer;
  stripped: Buffer;
  goVersion: string;
  goarch: string;
}

function write(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

function buildGoBinaries(): Built {
  requireTool('go');
  const dir = mkdtempSync(join(tmpdir(), 'vigil-go-'));
  const lib = { 'go.mod': 'module example.org/lib\n\ngo 1.18\n', 'lib.go': 'package lib\n\nfunc Hello() string { return "hello" }\n' };
  writeModuleProxy(join(dir, 'proxy'), 'example.org/lib', 'v1.2.3', lib);
  write(join(dir, 'dep/go.mod'), 'module example.com/dep\n\ngo 1.18\n');
  write(join(dir, 'dep/dep.go'), 'package dep\n\nfunc Name() string { return "dep" }\n');
  write(
    join(dir, 'app/go.mod'),
    'module example.com/app\n\ngo 1.18\n\nrequire (\n\texample.com/dep v0.0.0\n\texample.org/lib v1.2.3\n)\n\nreplace example.com/dep => ../dep\n',
  );
  write(
    join(dir, 'app/main.go'),
    'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/dep"\n\t"example.org/lib"\n)\n\nfunc main() { fmt.Println(dep.Name(), lib.Hello()) }\n',
  );
  const env = offlineGoEnv(dir, { proxy: join(dir, 'proxy') });
  const go = (...args: string[]): string => execFileSync('go', args, { cwd: join(dir, 'app'), env, stdio: 'pipe' }).toString().trim();
  go('build', '-buildvcs=false', '-o', join(dir, 'app-full'), '.');
  go('build', '-buildvcs=false', '-ldflags=-s -w', '-o', join(dir, 'app-stripped'), '.');
  return {
    dir,
    full: readFileSync(join(dir, 'app-full')),
    stripped: readFileSync(join(dir, 'app-stripped')),
    goVersion: go('env', 'GOVERSION'),
    goarch: go('env', 'GOARCH'),
  };
}

describe.skipIf(missingTools('go'))('goBinaryCataloger on binaries built with the Go toolchain', () => {
  let built: Built;
  beforeAll(() => {
    built = buildGoBinaries();
  }, 180_000);
  afterAll(() => {
    if (built) rmSync(built.dir, { recursive: true, force: true });
  });

  it('reports the main module, the replaced local module, the versioned dependency and stdlib', () => {
    const pkgs = goBinaryCataloger.parse('/usr/local/bin/app', built.full) as ReturnType<typeof goPackages>;
    const stdlibVersion = built.goVersion.replace(/^go/, '');
    expect(pkgs.map((p) => [p.name, p.version, p.purl])).toEqual([
      ['example.com/app', '(devel)', 'pkg:golang/example.com/app'],
      ['example.com/dep', 'v0.0.0', 'pkg:golang/example.com/dep@v0.0.0'],
      ['example.org/lib', 'v1.2.3', 'pkg:golang/example.org/lib@v1.2.3'],
      ['stdlib', stdlibVersion, `pkg:golang/stdlib@${stdlibVersion}`],
    ]);
    for (const p of pkgs) {
      expect(p).toMatchObject({ type: 'go', locations: ['/usr/local/bin/app'] });
      expect(p.metadata).toMatchObject({ goVersion: built.goVersion, mainModule: 'example.com/app', architecture: built.goarch });
    }
    const [main, dep, lib, stdlib] = pkgs;
    expect(main).toMatchObject({ origin: 'example.com/app', cpes: [] });
    expect(main!.metadata).toMatchObject({
      mainModuleVersion: '(devel)',
      mainPackage: 'example.com/app',
      goos: 'linux',
      buildSettings: { GOOS: 'linux', GOARCH: built.goarch, CGO_ENABLED: '0', '-compiler': 'gc' },
    });
    expect(dep!.metadata).toMatchObject({ replace: { path: '../dep', local: true } });
    expect(dep!.metadata['h1Digest']).toBeUndefined();
    expect(lib!.metadata['h1Digest']).toMatch(/^h1:[A-Za-z0-9+/]{43}=$/);
    expect(lib!.metadata['replace']).toBeUndefined();
    expect(stdlib).toMatchObject({ cpes: [`cpe:2.3:a:golang:go:${stdlibVersion}:*:*:*:*:*:*:*`] });
  });

  it('reads stripped (-ldflags="-s -w") binaries and records the ldflags', () => {
    const pkgs = goBinaryCataloger.parse('/app/server', built.stripped) as ReturnType<typeof goPackages>;
    expect(pkgs.map((p) => p.name)).toEqual(['example.com/app', 'example.com/dep', 'example.org/lib', 'stdlib']);
    expect(pkgs[0]!.metadata['buildSettings']).toMatchObject({ '-ldflags': '-s -w' });
  });

  it('finds the build info by scanning when the section table is gone', () => {
    const noSections = Buffer.from(built.stripped);
    noSections.writeBigUInt64LE(0n, 40); // e_shoff
    noSections.writeUInt16LE(0, 60); // e_shnum
    const info = readGoBuildInfo(noSections);
    expect(info?.goVersion).toBe(built.goVersion);
    expect(info?.deps.map((d) => d.path)).toEqual(['example.com/dep', 'example.org/lib']);
  });

  it('survives truncated Go binaries', () => {
    for (const length of [64, 4096, Math.floor(built.full.length / 2), built.full.length - 1]) {
      expect(() => goBinaryCataloger.parse('/usr/bin/app', built.full.subarray(0, length))).not.toThrow();
    }
  });
});

describe('goBinaryCataloger on non-Go input', () => {
  it('yields nothing for a non-Go ELF executable', () => {
    const elf = readFileSync('/bin/true');
    expect(elf.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(goBinaryCataloger.parse('/bin/true', elf)).toEqual([]);
  });

  it('yields nothing for garbage, empty files, scripts and a bare ELF header', () => {
    const elfHeaderOnly = Buffer.alloc(64);
    elfHeaderOnly.write('\x7fELF', 0, 'latin1');
    elfHeaderOnly[4] = 2;
    elfHeaderOnly[5] = 1;
    elfHeaderOnly.writeBigUInt64LE(0xffff_ffff_ffffn, 40); // section table far outside the file
    elfHeaderOnly.writeUInt16LE(0xffff, 60);
    const magicOnly = Buffer.concat([elfHeaderOnly, Buffer.from('\xff Go buildinf:\x08\x02', 'latin1'), Buffer.alloc(64, 0xff)]);
    for (const input of [
      Buffer.alloc(0),
      Buffer.from('#!/bin/sh\necho hi\n'),
      Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 256)),
      elfHeaderOnly,
      magicOnly,
    ]) {
      expect(goBinaryCataloger.parse('/usr/bin/x', input)).toEqual([]);
    }
  });
});

describe('goBinaryCataloger.matches', () => {
  it('matches executable directories and application trees, not assets', () => {
    for (const p of ['/usr/bin/kubectl', '/usr/local/bin/app', '/bin/busybox', '/sbin/x', '/usr/sbin/x', '/go/bin/dlv', '/root/go/bin/gopls', '/opt/app/bin/server', '/app/server', '/app/server.v2']) {
      expect(goBinaryCataloger.matches(p), p).toBe(true);
    }
    for (const p of ['/etc/passwd', '/usr/lib/x86_64-linux-gnu/libc.so.6', '/home/u/tool', '/app/index.js', '/app/config.yaml', '/opt/x/README.md', '/app/node_modules/esbuild/bin/esbuild', '/usr/share/doc/x']) {
      expect(goBinaryCataloger.matches(p), p).toBe(false);
    }
  });
});

/** Go's modinfo sentinels (cmd/go/internal/modload), which frame the module text inside binaries. */
const SENTINEL_START = Buffer.from('3077af0c9274080241e1c107e6d618e6', 'hex');
const SENTINEL_END = Buffer.from('f932433186182072008242104116d8f2', 'hex');

/**
 * A minimal ELF64 executable carrying build info in the pre-1.18 pointer format: the header holds virtual addresses
 * of Go string headers {data, len}, resolved through a single PT_LOAD segment at 0x400000.
 */
function legacyGoElf(version: string, modinfo: string): Buffer {
  const base = 0x400000;
  const versionBytes = Buffer.from(version);
  const modBytes = Buffer.concat([SENTINEL_START, Buffer.from(modinfo), SENTINEL_END]);
  const size = 224 + versionBytes.length + modBytes.length;
  const b = Buffer.alloc(size);
  b.write('\x7fELF', 0, 'latin1');
  b[4] = 2; // 64-bit
  b[5] = 1; // little-endian
  b[6] = 1;
  b.writeUInt16LE(2, 16); // ET_EXEC
  b.writeUInt16LE(183, 18); // aarch64
  b.writeUInt32LE(1, 20);
  b.writeBigUInt64LE(64n, 32); // e_phoff
  b.writeUInt16LE(64, 52);
  b.writeUInt16LE(56, 54);
  b.writeUInt16LE(1, 56); // one program header
  b.writeUInt16LE(64, 58);
  // PT_LOAD covering the whole file, read-write.
  b.writeUInt32LE(1, 64);
  b.writeUInt32LE(6, 68);
  b.writeBigUInt64LE(0n, 72);
  b.writeBigUInt64LE(BigInt(base), 80);
  b.writeBigUInt64LE(BigInt(base), 88);
  b.writeBigUInt64LE(BigInt(size), 96);
  b.writeBigUInt64LE(BigInt(size), 104);
  // Build info header at 128 (16-aligned): magic, ptrSize 8, flags 0 (pointers, little-endian).
  b.write('\xff Go buildinf:', 128, 'latin1');
  b[142] = 8;
  b[143] = 0;
  b.writeBigUInt64LE(BigInt(base + 160), 144);
  b.writeBigUInt64LE(BigInt(base + 176), 152);
  // String headers.
  b.writeBigUInt64LE(BigInt(base + 224), 160);
  b.writeBigUInt64LE(BigInt(versionBytes.length), 168);
  b.writeBigUInt64LE(BigInt(base + 224 + versionBytes.length), 176);
  b.writeBigUInt64LE(BigInt(modBytes.length), 184);
  versionBytes.copy(b, 224);
  modBytes.copy(b, 224 + versionBytes.length);
  return b;
}

describe('readGoBuildInfo on the pre-1.18 pointer format', () => {
  it('resolves the string pointers through the ELF segments', () => {
    const elf = legacyGoElf('go1.16.15', 'path\texample.com/old\nmod\texample.com/old\t(devel)\t\ndep\tgithub.com/sirupsen/logrus\tv1.8.1\th1:abc=\n');
    const info = readGoBuildInfo(elf);
    expect(info).toMatchObject({ goVersion: 'go1.16.15', path: 'example.com/old', architecture: 'arm64', settings: [] });
    const pkgs = goBinaryCataloger.parse('/usr/bin/old', elf) as ReturnType<typeof goPackages>;
    expect(pkgs.map((p) => p.purl)).toEqual(['pkg:golang/example.com/old', 'pkg:golang/github.com/sirupsen/logrus@v1.8.1', 'pkg:golang/stdlib@1.16.15']);
    expect(pkgs[1]).toMatchObject({ cpes: ['cpe:2.3:a:sirupsen:logrus:1.8.1:*:*:*:*:*:*:*'], metadata: { h1Digest: 'h1:abc=', architecture: 'arm64' } });
  });
});

describe('parseGoModInfo / goPackages', () => {
  it('parses quoted build settings and module replacements', () => {
    const info = parseGoModInfo(
      [
        'path\texample.com/cmd/tool',
        'mod\texample.com/tool\tv1.4.0\th1:main=',
        'dep\tgithub.com/old/yaml\tv2.0.0\th1:old=',
        '=>\tgithub.com/fork/yaml\tv2.0.1\th1:fork=',
        'dep\tgolang.org/x/net\tv0.17.0\th1:net=',
        'build\t-ldflags="-X main.version=1.4.0 -s"',
        'build\t"weird key"=v',
        'build\tvcs.revision=0123abcd',
        '',
      ].join('\n'),
    );
    expect(info.settings).toEqual([
      { key: '-ldflags', value: '-X main.version=1.4.0 -s' },
      { key: 'weird key', value: 'v' },
      { key: 'vcs.revision', value: '0123abcd' },
    ]);
    expect(info.deps[0]).toEqual({ path: 'github.com/old/yaml', version: 'v2.0.0', sum: 'h1:old=', replace: { path: 'github.com/fork/yaml', version: 'v2.0.1', sum: 'h1:fork=' } });

    const pkgs = goPackages('/usr/bin/tool', { goVersion: 'go1.21.3 X:boringcrypto', ...info });
    expect(pkgs.map((p) => `${p.name}@${p.version}`)).toEqual([
      'example.com/tool@v1.4.0',
      'github.com/fork/yaml@v2.0.1',
      'golang.org/x/net@v0.17.0',
      'stdlib@1.21.3',
    ]);
    // A module replacement supplies the code: reported as the fork, the original kept in metadata.
    expect(pkgs[1]!.metadata).toMatchObject({ h1Digest: 'h1:fork=', replaces: { path: 'github.com/old/yaml', version: 'v2.0.0' }, replace: { local: false } });
    expect(pkgs[0]!.purl).toBe('pkg:golang/example.com/tool@v1.4.0');
    expect(pkgs[2]!.cpes).toEqual(['cpe:2.3:a:golang:net:0.17.0:*:*:*:*:*:*:*']);
  });

  it('keeps CPEs to module paths that name vendor and product', () => {
    expect(goModuleCpes('github.com/docker/docker', 'v24.0.7+incompatible')).toEqual(['cpe:2.3:a:docker:docker:24.0.7:*:*:*:*:*:*:*']);
    expect(goModuleCpes('gopkg.in/yaml.v3', 'v3.0.1')).toEqual([]);
    expect(goModuleCpes('github.com/a/b', '(devel)')).toEqual([]);
  });
});
