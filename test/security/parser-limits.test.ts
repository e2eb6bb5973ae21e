/**
 * Issue 14, item 8 (audit): parsers of untrusted input — user-written regular expressions, SPDX license
 * expressions, Dockerfiles, package-lock.json files from images, policy findings — stay within bounded stack and
 * work whatever the input nests or repeats.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FileRecord } from '../../src/images/model.js';
import { npmCataloger } from '../../src/ecosystems/npm/cataloger.js';
import { classifyLicense } from '../../src/images/sbom/licenses.js';
import type { PolicyDocument } from '../../src/policy/document.js';
import { evaluatePolicy } from '../../src/policy/evaluate-policy.js';
import { dockerfileGate } from '../../src/policy/gates/dockerfile.js';
import { regexString } from '../../src/policy/params.js';
import { pythonMatcher } from '../../src/util/python-regex.js';
import { backtrackingShape } from '../../src/util/user-regex.js';
import { fakeContext, run } from '../unit/policy/triggers/fake-context.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('user-written regular expressions', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
  });

  /** Runs a module snippet in its own process, so a runaway match cannot block this test runner. */
  function runIsolated(code: string): Promise<string> {
    child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    return new Promise((done) => child!.once('exit', () => done(out)));
  }

  it('a catastrophic pattern from a policy finishes instead of backtracking for ever', async () => {
    // 2^40 backtracking steps without the linear-engine fallback: the child would never exit.
    const out = await runIsolated(
      `import { pythonMatcher } from './src/util/python-regex.ts';
       process.stdout.write(String(pythonMatcher('(a+)+$')('a'.repeat(40) + '!')));`,
    );
    expect(out).toBe('false');
  });

  it('refuses groups nested deeper than the limit, as the policy validator reports them', () => {
    const deep = `${'('.repeat(60)}a${')'.repeat(60)}`;
    expect(() => pythonMatcher(deep)).toThrow(/nest 61 deep/);
    expect(regexString.check(deep)).toMatch(/is not a valid regular expression: .*nest/);
    // Parentheses that are escaped or inside a character class are not groups.
    expect(pythonMatcher(`${'\\('.repeat(60)}[(((((]`)(`${'('.repeat(61)}`)).toBe(true);
  });

  it('refuses backreferences and lookaround together with a repeated group that repeats or alternates', () => {
    // (a+)+\1$ took 85 s on 30 characters: V8's linear engine cannot run backreferences, so nothing bounds it.
    for (const pattern of ['(a+)+\\1$', '(a|ab)*(?=x)', '(?<n>a+){2,}\\k<n>', '((a)*b)+(?<!c)']) {
      expect(() => pythonMatcher(pattern), pattern).toThrow(/backreferences or lookaround/);
      expect(regexString.check(pattern)).toMatch(/is not a valid regular expression: .*exponential/);
    }
    // Either alone is fine: nested repetition falls back to the linear engine; plain backreferences are cheap.
    for (const pattern of ['(a+)+$', '(ab)\\1', '(a)(b)+\\2', '[(]+\\1', '(a+)?(?=x)', 'x(?!y)'])
      expect(() => pythonMatcher(pattern), pattern).not.toThrow();
    expect(backtrackingShape('(a{2,})+')).toEqual({ needsBacktracking: false, nestedRepetition: true });
    expect(backtrackingShape('(ab){1}\\1')).toEqual({ needsBacktracking: true, nestedRepetition: false });
  });
});

describe('SPDX license expressions', () => {
  it('keeps a declared license too long to be a real expression as a name, unparsed', () => {
    const declared = Array.from({ length: 3000 }, () => 'MIT').join(' AND ');
    expect(classifyLicense(declared)).toEqual({ kind: 'name', name: declared });
    expect(classifyLicense('MIT AND Apache-2.0')).toEqual({ kind: 'expression', expression: 'MIT AND Apache-2.0' });
  });
});

describe('Dockerfile variables', () => {
  it('resolves variables in one pass, not once per instruction', async () => {
    const n = 2000;
    const lines = ['FROM scratch'];
    for (let i = 0; i < n; i++) lines.push(`ARG PORT_${i}=${1000 + i}`, `EXPOSE $PORT_${i}`);
    const base = fakeContext();
    const ctx = { ...base, image: { ...base.image, dockerfile: { mode: 'Actual' as const, text: lines.join('\n') } } };
    // Every ARG's assignments are read with String#matchAll: counting its calls counts the work.
    const matchAll = vi.spyOn(String.prototype, 'matchAll');
    try {
      const fired = await run(dockerfileGate, 'exposed_ports', ctx, { type: 'blacklist', ports: '1000,2999' });
      expect(fired.map((f) => f.message).sort()).toEqual(['Dockerfile exposes port 1000/tcp, which is in the denied list', 'Dockerfile exposes port 2999/tcp, which is in the denied list']);
      expect(matchAll.mock.calls.length).toBeLessThanOrEqual(2 * lines.length);
    } finally {
      matchAll.mockRestore();
    }
  });
});

describe('package-lock.json from an image', () => {
  const parse = (lock: unknown) => npmCataloger.parse('/app/package-lock.json', Buffer.from(JSON.stringify(lock))) as unknown[];

  it('reads a v1 tree nested 20,000 deep down to the nesting limit instead of losing the whole file', () => {
    // Built as text: JSON.stringify itself recurses.
    const text = `{"lockfileVersion":1,"dependencies":${'{"p":{"version":"1.0.0","dependencies":'.repeat(20_000)}{}${'}}'.repeat(20_000)}}`;
    const packages = npmCataloger.parse('/app/package-lock.json', Buffer.from(text)) as unknown as { name: string; metadata: { installPaths: string[] } }[];
    expect(packages).toHaveLength(1);
    expect(packages[0]!.name).toBe('p');
    expect(packages[0]!.metadata.installPaths).toHaveLength(100);
  });

  it('reads a v2 lock file of 150,000 packages', () => {
    const packages: Record<string, unknown> = { '': { name: 'app', version: '1.0.0' } };
    for (let i = 0; i < 150_000; i++) packages[`node_modules/p${i}`] = { version: '1.0.0' };
    expect(parse({ lockfileVersion: 3, packages })).toHaveLength(150_000);
  });
});

describe('policy evaluation', () => {
  it('collects a finding per file of an image with 200,000 files', async () => {
    const files: FileRecord[] = Array.from({ length: 200_000 }, (_, i) => ({ path: `/srv/f${i}`, type: 'file', mode: 0o644, uid: 0, gid: 0, size: 1 }));
    const doc: PolicyDocument = {
      id: 'p',
      name: 'p',
      version: '2',
      rule_sets: [{ id: 'rs', name: 'rs', version: '2', rules: [{ id: 'r', gate: 'files', trigger: 'name_match', action: 'WARN', params: [{ name: 'regex', value: '/srv/' }] }] }],
      mappings: [{ id: 'm', name: 'm', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs'], allowlist_ids: [] }],
    };
    const result = await evaluatePolicy(doc, fakeContext({ files }), { detail: false });
    expect(result.number_of_findings).toBe(200_000);
  });
});
