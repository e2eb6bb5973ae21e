/**
 * Building real Go binaries in tests, offline: an environment that keeps the build inside a
 * temp directory and off the network, and a `file://` module proxy serving modules written by the test (so the
 * build info records a real version and h1: sum).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';

/**
 * The environment of a hermetic build under `dir`: its own GOPATH and cache, no go.env, no toolchain download, no
 * checksum database, modules from `proxy` (a directory written by `writeModuleProxy`) or none at all, no cgo,
 * and a linux binary whatever the host (`goarch` when the test needs one architecture).
 */
export function offlineGoEnv(dir: string, options: { proxy?: string; goarch?: string } = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: dir,
    GOPATH: join(dir, 'gopath'),
    GOCACHE: join(dir, 'gocache'),
    GOENV: 'off',
    // -modcacherw: the module cache is read-only by default, which would stop the test's cleanup from deleting it.
    GOFLAGS: '-mod=mod -modcacherw',
    GOPROXY: options.proxy ? `file://${options.proxy}` : 'off',
    GOSUMDB: 'off',
    GOTOOLCHAIN: 'local',
    GOWORK: 'off',
    GO111MODULE: 'on',
    CGO_ENABLED: '0',
    GOOS: 'linux',
    ...(options.goarch ? { GOARCH: options.goarch } : {}),
  };
}

/** Serves `module@version` with `files` (go.mod among them) from the proxy directory `proxy`, as GOPROXY lays it out. */
export function writeModuleProxy(proxy: string, module: string, version: string, files: Record<string, string>): void {
  const dir = join(proxy, module, '@v');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'list'), `${version}\n`);
  writeFileSync(join(dir, `${version}.info`), JSON.stringify({ Version: version, Time: '2023-01-01T00:00:00Z' }));
  writeFileSync(join(dir, `${version}.mod`), files['go.mod'] ?? `module ${module}\n`);
  const prefix = `${module}@${version}`;
  writeFileSync(join(dir, `${version}.zip`), zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [`${prefix}/${name}`, strToU8(text)]))));
}
