/**
 * System tools the tests run (Go, rpm, a local registry, ...), each with the Debian package that provides it.
 * A test that needs one declares it with `describe.skipIf(missingTools('go'))(...)`: on a machine without the
 * tool the test is skipped and the file prints one line naming the package, so `npm test` passes with Node alone.
 * `.ci/run` installs every package and fails a run that skipped anything; `VIGIL_REQUIRE_TOOLS=1` turns a missing
 * tool into a failure here too (for a CI that wants the reason at the test rather than in the summary).
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import { expect } from 'vitest';

const DEBIAN_PACKAGE = {
  go: 'golang-go',
  rpm: 'rpm',
  rpmbuild: 'rpm',
  perl: 'perl',
  gpg: 'gnupg',
  htpasswd: 'apache2-utils',
  'docker-registry': 'docker-registry',
  skopeo: 'skopeo',
  zstd: 'zstd',
  openssl: 'openssl',
  xmllint: 'libxml2-utils',
  rustc: 'rustc',
  chromium: 'chromium',
  dpkg: 'dpkg',
  mmdebstrap: 'mmdebstrap',
  promtool: 'prometheus',
  'docker-compose': 'docker-compose',
  yamllint: 'yamllint',
} as const;

export type Tool = keyof typeof DEBIAN_PACKAGE;

const located = new Map<Tool, string | undefined>();

/** The executable's path found on PATH, or undefined. Looked up once per test file. */
export function toolPath(tool: Tool): string | undefined {
  if (!located.has(tool)) {
    let found: string | undefined;
    for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
      if (!dir || !isAbsolute(dir)) continue;
      const candidate = join(dir, tool);
      try {
        accessSync(candidate, constants.X_OK);
        found = candidate;
        break;
      } catch {
        // not in this directory
      }
    }
    located.set(tool, found);
  }
  return located.get(tool);
}

/** The one line that says what to install for the tools that are absent. */
export function installHint(tools: readonly Tool[]): string {
  const absent = tools.filter((t) => !toolPath(t));
  const packages = [...new Set(absent.map((t) => DEBIAN_PACKAGE[t]))];
  return `needs ${absent.join(', ')} (Debian: apt-get install -y ${packages.join(' ')})`;
}

const announced = new Set<string>();

/**
 * True when one of `tools` is absent, for `describe.skipIf` / `it.skipIf`. The first time a file finds a given
 * set missing it writes one line to stderr (straight to the stream: vitest would frame a console.warn with a
 * header line).
 */
export function missingTools(...tools: Tool[]): boolean {
  if (tools.every((t) => toolPath(t))) return false;
  const hint = installHint(tools);
  if (process.env['VIGIL_REQUIRE_TOOLS'] === '1') throw new Error(`VIGIL_REQUIRE_TOOLS=1 and a test ${hint}`);
  if (!announced.has(hint)) {
    announced.add(hint);
    const file = expect.getState().testPath;
    process.stderr.write(`SKIPPED ${file ? relative(process.cwd(), file) : 'tests'}: ${hint}\n`);
  }
  return true;
}

/** For fixture builders: the tool's path, or an error with the install hint (a test forgot `missingTools`). */
export function requireTool(tool: Tool): string {
  const path = toolPath(tool);
  if (!path) throw new Error(`a test ${installHint([tool])}; declare it with missingTools('${tool}') so it is skipped`);
  return path;
}
