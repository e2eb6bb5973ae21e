/** Locates files that ship beside the code (package.json, generated/), from source and from dist alike. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const projectRoot = findRoot();

export function readProjectJson<T = unknown>(relativePath: string): T {
  return JSON.parse(readFileSync(join(projectRoot, relativePath), 'utf8')) as T;
}

export const packageVersion: string = readProjectJson<{ version: string }>('package.json').version;
