/**
 * `npm start` runs this before starting the service: it runs `npm run build` only when something the build reads
 * changed since the last successful build, so a restart without edits starts at once. The last build is marked by
 * a stamp file in dist/ written after tsc succeeds; a fresh clone (no dist/, no stamp) always builds.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build reads (tsconfig.build.json's include, the compiler settings and the dependencies' types). */
export const BUILD_INPUTS = ['src', 'generated', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
export const STAMP = 'dist/.build-stamp';
export const ENTRY = 'dist/src/main.js';

/**
 * The newest modification time under `path`, directories included (a deleted or renamed file changes its
 * directory's mtime, not any remaining file's). 0 when the path does not exist.
 */
export function newestMtime(path: string): number {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  let newest = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

export type BuildDecision = { build: false } | { build: true; reason: string };

/** Whether `root` needs a build: no entry point, no stamp, or an input newer than the stamp. */
export function buildDecision(root: string): BuildDecision {
  if (newestMtime(join(root, ENTRY)) === 0) return { build: true, reason: `${ENTRY} does not exist` };
  const stamp = newestMtime(join(root, STAMP));
  if (stamp === 0) return { build: true, reason: 'no record of a previous build' };
  for (const input of BUILD_INPUTS) {
    if (newestMtime(join(root, input)) > stamp) return { build: true, reason: `${input} changed since the last build` };
  }
  return { build: false };
}

/** Marks a build that started at `when` (the stamp's mtime is what is compared; the text is for people). */
export function writeStamp(root: string, when: Date): void {
  const path = join(root, STAMP);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `build started ${when.toISOString()}\n`);
  utimesSync(path, when, when);
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const decision = buildDecision(root);
  if (!decision.build) {
    console.log('build is up to date (dist/); skipping npm run build');
    return;
  }
  console.log(`building: ${decision.reason}`);
  // Stamped with the time the build started, so an edit made while tsc runs still triggers the next build.
  const started = new Date();
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeStamp(root, started);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
