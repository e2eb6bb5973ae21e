import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDecision, ENTRY, writeStamp } from '../../scripts/build-if-stale.js';

let root: string;
const T0 = new Date('2026-01-01T00:00:00Z');
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** Writes a file (creating its directory) and sets its and the directory's mtime. */
function put(rel: string, when: Date, content = 'x'): void {
  const path = join(root, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  utimesSync(path, when, when);
  utimesSync(join(path, '..'), when, when);
}

/** A checkout as cloned at T0 and built at T0+10s. */
function builtCheckout(): void {
  for (const f of ['src/main.ts', 'src/api/app.ts', 'generated/operations.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json']) put(f, T0);
  for (const d of ['src', 'generated']) utimesSync(join(root, d), T0, T0);
  put(ENTRY, later(12));
  writeStamp(root, later(10));
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'vigil-build-stale-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('buildDecision', () => {
  it('builds a fresh clone (no dist/)', () => {
    put('src/main.ts', T0);
    expect(buildDecision(root)).toEqual({ build: true, reason: `${ENTRY} does not exist` });
  });

  it('builds when dist/ exists but no build by this script recorded it', () => {
    put('src/main.ts', T0);
    put(ENTRY, later(5));
    expect(buildDecision(root)).toEqual({ build: true, reason: 'no record of a previous build' });
  });

  it('skips the build when nothing changed since it started', () => {
    builtCheckout();
    expect(buildDecision(root)).toEqual({ build: false });
  });

  it('builds after a source file is edited, also deep in a directory', () => {
    builtCheckout();
    put('src/api/app.ts', later(20));
    expect(buildDecision(root)).toEqual({ build: true, reason: 'src changed since the last build' });
  });

  it('builds after a file is deleted (its directory changed)', () => {
    builtCheckout();
    unlinkSync(join(root, 'src/api/app.ts'));
    utimesSync(join(root, 'src/api'), later(20), later(20));
    expect(buildDecision(root)).toMatchObject({ build: true });
  });

  it('builds after regenerated code, compiler settings or dependencies change', () => {
    for (const input of ['generated/operations.ts', 'tsconfig.build.json', 'package.json', 'package-lock.json']) {
      builtCheckout();
      put(input, later(30));
      expect(buildDecision(root), input).toEqual({ build: true, reason: `${input.split('/')[0]} changed since the last build` });
    }
  });

  it('builds again after an edit made while the previous build ran (the stamp is the start time)', () => {
    builtCheckout();
    put('src/main.ts', later(11)); // after the build started at +10s, before tsc finished
    expect(buildDecision(root)).toMatchObject({ build: true });
  });

  it('ignores files outside the build inputs (tests, docs, data)', () => {
    builtCheckout();
    put('test/unit/x.test.ts', later(40));
    put('docs/x.md', later(40));
    put('data/vigil.db', later(40));
    expect(buildDecision(root)).toEqual({ build: false });
  });
});
