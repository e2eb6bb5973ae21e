/**
 * `npm start` runs this before starting the service: it runs `npm run build` (the service) and `npm run build:web`
 * (the web interface) each only when something that build reads changed since its last successful run, so a
 * restart without edits starts at once. Each last build is marked by a stamp file in dist/ written after the build
 * succeeds; a fresh clone (no dist/, no stamp) always builds.
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

/** One build `npm start` keeps fresh: the npm script, what it reads, what it writes, and its stamp. */
export interface BuildTarget {
  script: string;
  inputs: string[];
  output: string;
  stamp: string;
}

export const SERVICE_BUILD: BuildTarget = { script: 'build', inputs: BUILD_INPUTS, output: ENTRY, stamp: STAMP };
/** The web interface (Vite): web/, the generated API types it imports, and the dependencies. */
export const WEB_BUILD: BuildTarget = {
  script: 'build:web',
  inputs: ['web', 'generated', 'package.json', 'package-lock.json'],
  output: 'dist/web/index.html',
  stamp: 'dist/.web-build-stamp',
};

export type BuildDecision = { build: false } | { build: true; reason: string };

/** Whether `root` needs a build: no output, no stamp, or an input newer than the stamp. */
export function buildDecision(root: string, target: BuildTarget = SERVICE_BUILD): BuildDecision {
  if (newestMtime(join(root, target.output)) === 0) return { build: true, reason: `${target.output} does not exist` };
  const stamp = newestMtime(join(root, target.stamp));
  if (stamp === 0) return { build: true, reason: 'no record of a previous build' };
  for (const input of target.inputs) {
    if (newestMtime(join(root, input)) > stamp) return { build: true, reason: `${input} changed since the last build` };
  }
  return { build: false };
}

/** Marks a build that started at `when` (the stamp's mtime is what is compared; the text is for people). */
export function writeStamp(root: string, when: Date, target: BuildTarget = SERVICE_BUILD): void {
  const path = join(root, target.stamp);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `build started ${when.toISOString()}\n`);
  utimesSync(path, when, when);
}

/** Runs the target's build when it is stale; false when the build failed. */
export function buildIfStale(root: string, target: BuildTarget): boolean {
  const decision = buildDecision(root, target);
  if (!decision.build) {
    console.log(`${target.output} is up to date; skipping npm run ${target.script}`);
    return true;
  }
  console.log(`npm run ${target.script}: ${decision.reason}`);
  // Stamped with the time the build started, so an edit made during the build still triggers the next one.
  const started = new Date();
  const result = spawnSync('npm', ['run', target.script], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) return false;
  writeStamp(root, started, target);
  return true;
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  for (const target of [SERVICE_BUILD, WEB_BUILD]) if (!buildIfStale(root, target)) process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
