/**
 * The shape of the code, checked: no runtime import cycles in src/; arrows point one way, api -> domain -> db (the
 * HTTP layer is above every domain module, the database layer below them); the ecosystems layer (src/ecosystems/,
 * src/formats/) depends on nothing above it (only on src/util/ and the coded errors of src/errors.ts), so images,
 * vulns and policy read ecosystem knowledge from it and never the other way round; and modules that must not know
 * each other (events and notifications, feeds and policy) are wired together only by the composition (service.ts,
 * jobs/registry.ts). Type-only imports are left out: they vanish at compile time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(path) : e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative runtime imports and re-exports of a file, as repo-relative .ts paths. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const statement = /^(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const match of text.matchAll(statement)) {
    if (match[1]) continue;
    // `import { type A, type B } from` is type-only too.
    const clause = /\{([^}]*)\}/.exec(match[0])?.[1];
    if (clause && clause.split(',').every((part) => part.trim() === '' || part.trim().startsWith('type '))) continue;
    out.push(relative(ROOT, resolve(dirname(file), match[2]!.replace(/\.js$/, '.ts'))));
  }
  return out;
}

const graph = new Map(sourceFiles(SRC).map((f) => [relative(ROOT, f), runtimeImports(f)]));

/** Strongly connected components of more than one file (Tarjan). */
function cycles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import graph of src/', () => {
  it('reads every source file', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('src/ecosystems/registry.ts')).toContain('src/ecosystems/dpkg/index.ts');
  });

  it('has no runtime import cycles', () => {
    expect(cycles()).toEqual([]);
  });

  it('keeps the ecosystems and formats layers below the domain modules', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      /^src\/(ecosystems|formats)\//.test(file)
        ? imports.filter((target) => !/^src\/(ecosystems\/|formats\/|util\/|errors\.ts$)/.test(target)).map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  /** The HTTP layer: REST handlers, the server, and the GraphQL endpoint's adapter (which lives with its schema). */
  const HTTP_LAYER = /^src\/(api\/|server\/|main\.ts$|reports\/graphql\/http\.ts$|reports\/graphiql\.ts$)/;

  it('keeps the HTTP layer above the domain: no domain module imports a handler or the server', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      HTTP_LAYER.test(file) || file.startsWith('src/cli/') ? [] : imports.filter((target) => HTTP_LAYER.test(target)).map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('keeps the database layer below the domain: src/db imports only itself, util, errors, config and leaf helpers', () => {
    // A leaf helper imports nothing of src/ at run time (a migration may reuse a pure encoding, e.g. file-list.ts).
    const leaf = (target: string) => (graph.get(target) ?? []).every((t) => /^src\/(util\/|errors\.ts$)/.test(t));
    const upward = [...graph].flatMap(([file, imports]) =>
      file.startsWith('src/db/')
        ? imports.filter((target) => !/^src\/(db\/|util\/|errors\.ts$|config\.ts$)/.test(target) && !leaf(target)).map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('wires events to notifications, and feeds to policy, only through the composition', () => {
    const crossing = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => (file.startsWith('src/events/') && target.startsWith('src/notifications/')) || (file.startsWith('src/vulns/') && target.startsWith('src/policy/')))
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossing).toEqual([]);
  });
});
