/**
 * docs/compatibility.md lists which upstream operations Vigil declares and which it does not. The lists are
 * written by `npm run compat:report -- --write`; this test keeps them true to the served spec
 * (generated/swagger.json) without needing the upstream inventory itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'compatibility.md'), 'utf8');
const swagger = JSON.parse(readFileSync(join(root, 'generated', 'swagger.json'), 'utf8'));

const key = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

const served = new Map<string, string>();
for (const [path, item] of Object.entries<Record<string, { operationId: string }>>(swagger.paths))
  for (const method of ['get', 'put', 'post', 'delete', 'patch'])
    if (item[method]) served.set(key(method, path), item[method].operationId);

/** The `- \`METHOD /path\` operationId` lines of one `###` section. */
function section(title: string): { key: string; operationId: string }[] {
  const start = doc.indexOf(`### ${title}\n`);
  expect(start, `section "${title}" in docs/compatibility.md`).toBeGreaterThan(0);
  const rest = doc.slice(start + title.length + 5);
  const body = rest.slice(0, rest.search(/\n### |<!-- compat:generated:end/));
  return [...body.matchAll(/^- `(\w+) ([^`]+)` (\S+)$/gm)].map((m) => ({ key: key(m[1], m[2]), operationId: m[3] }));
}

describe('docs/compatibility.md', () => {
  const declared = section('Upstream operations Vigil declares');
  const missing = section('Upstream operations Vigil does not declare');
  const extensions = section('Vigil extensions (not upstream operations)');

  it('lists as declared only operations the served spec has, under the upstream operationId', () => {
    for (const op of declared) expect(served.get(op.key), op.key).toBe(op.operationId);
  });

  it('lists as not declared only operations the served spec lacks', () => {
    for (const op of missing) expect(served.has(op.key), op.key).toBe(false);
  });

  it('accounts for every served operation, as an upstream one or an extension', () => {
    const listed = new Set([...declared, ...extensions].map((op) => op.key));
    expect([...served.keys()].filter((k) => !listed.has(k))).toEqual([]);
    expect(declared.length + extensions.length).toBe(served.size);
  });

  it('states the counts it lists', () => {
    expect(doc).toContain(`Declared by Vigil with upstream's method, path and operationId: **${declared.length}**`);
    expect(doc).toContain(`Not declared: **${missing.length}**`);
  });

  it('declares at least 215 upstream operations', () => {
    expect(declared.length).toBeGreaterThanOrEqual(215);
  });
});
