/**
 * web/src/mantine.css imports Mantine's styles per component rather than the whole of @mantine/core/styles.css. A
 * component without its styles renders unstyled, which no other test would notice, so this checks the list: it
 * follows the Mantine components the interface imports through the library's own module graph (a Select is built
 * from Combobox, Input, Popover, ScrollArea...) to every CSS module they use, and compares that with the list, in
 * the order styles.css itself has them (later rules override earlier ones).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MANTINE = join(ROOT, 'node_modules/@mantine/core');
const ESM = join(MANTINE, 'esm');
const GLOBAL_STYLES = ['baseline', 'default-css-variables', 'global'];

function webSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? webSources(path) : /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The runtime names the interface imports from @mantine/core (types left out: they have no styles). */
function usedComponents(): string[] {
  const names = new Set<string>();
  for (const file of webSources(join(ROOT, 'web/src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/import\s+\{([^}]+)\}\s+from\s+'@mantine\/core'/g)) {
      for (const part of m[1]!.split(',').map((p) => p.trim())) if (part && !part.startsWith('type ')) names.add(part);
    }
  }
  return [...names].sort();
}

/** The CSS modules (by component name) reachable from the module that exports `name` in Mantine's ESM build. */
function stylesReachedFrom(names: string[]): Set<string> {
  const index = readFileSync(join(ESM, 'index.mjs'), 'utf8');
  const seen = new Set<string>();
  const styles = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import) '(\.[^']+)'/g)) {
      const target = resolve(dirname(file), m[1]!);
      if (target.endsWith('.module.css.mjs')) styles.add(basename(target, '.module.css.mjs'));
      else if (existsSync(target)) walk(target);
    }
  };
  for (const name of names) {
    const exported = new RegExp(`export \\{[^}]*\\b${name}\\b[^}]*\\} from '([^']+)'`).exec(index);
    if (!exported) throw new Error(`@mantine/core's index does not export ${name}`);
    walk(resolve(ESM, exported[1]!));
  }
  return styles;
}

/** Where each component's styles first appear in the full styles.css: the order to import them in. */
function styleOrder(): Map<string, number> {
  const full = readFileSync(join(MANTINE, 'styles.css'), 'utf8');
  const order = new Map<string, number>();
  for (const file of readdirSync(join(MANTINE, 'styles'))) {
    if (!file.endsWith('.css') || file.endsWith('.layer.css')) continue;
    const name = basename(file, '.css');
    const firstClass = /\.m_[0-9a-f]+/.exec(readFileSync(join(MANTINE, 'styles', file), 'utf8'))?.[0];
    if (firstClass) order.set(name, full.indexOf(firstClass));
  }
  return order;
}

describe('web/src/mantine.css', () => {
  it("imports the global styles, then every used component's styles and nothing else, in styles.css order", () => {
    const order = styleOrder();
    const expected = [...stylesReachedFrom(usedComponents())].sort((a, b) => order.get(a)! - order.get(b)!);
    const imported = [...readFileSync(join(ROOT, 'web/src/mantine.css'), 'utf8').matchAll(/@import '@mantine\/core\/styles\/([^']+)\.css';/g)].map((m) => m[1]);
    expect(imported).toEqual([...GLOBAL_STYLES, ...expected]);
  });
});
