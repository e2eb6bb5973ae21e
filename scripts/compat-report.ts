/**
 * Compares Vigil's contract with the upstream v2 operation inventory and writes the generated half of
 * docs/compatibility.md (coverage by tag, the operations Vigil declares, the ones it does not, its extensions).
 *
 *   npm run compat:report                 prints the coverage
 *   npm run compat:report -- --write      also rewrites docs/compatibility.md between its markers
 *
 * The inventory is the upstream-api-ops.tsv of the shared reference folder (VIGIL_UPSTREAM_OPS, default
 * ../shared/reference/upstream-api-ops.tsv). The written document carries every fact the check needs, so
 * test/unit/compatibility-doc.test.ts verifies it against generated/swagger.json without the inventory.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const inventoryPath = process.env.VIGIL_UPSTREAM_OPS ?? join(root, '..', 'shared', 'reference', 'upstream-api-ops.tsv');
const docPath = join(root, 'docs', 'compatibility.md');
const START = '<!-- compat:generated:start (npm run compat:report -- --write) -->';
const END = '<!-- compat:generated:end -->';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

interface Op {
  tag: string;
  method: string;
  path: string;
  operationId: string;
}

/** `GET /images/{}` — paths compared without parameter names, which differ harmlessly. */
const key = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

function vigilOperations(): Op[] {
  const swagger = JSON.parse(readFileSync(join(root, 'generated', 'swagger.json'), 'utf8'));
  const ops: Op[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(swagger.paths))
    for (const method of METHODS)
      if (item[method]) ops.push({ tag: item[method].tags?.[0] ?? '-', method: method.toUpperCase(), path, operationId: item[method].operationId });
  return ops;
}

function upstreamOperations(): Op[] {
  if (!existsSync(inventoryPath)) {
    console.error(`compat-report: no upstream inventory at ${inventoryPath} (set VIGIL_UPSTREAM_OPS)`);
    process.exit(2);
  }
  const [, ...rows] = readFileSync(inventoryPath, 'utf8').trim().split('\n');
  return rows.map((line) => {
    const [tag, method, path, operationId] = line.split('\t');
    return { tag, method, path, operationId };
  });
}

const line = (op: Op) => `- \`${op.method} ${op.path}\` ${op.operationId}`;

function byTag(ops: Op[]): Map<string, Op[]> {
  const groups = new Map<string, Op[]>();
  for (const op of [...ops].sort((a, b) => a.tag.localeCompare(b.tag) || a.path.localeCompare(b.path) || a.method.localeCompare(b.method)))
    groups.set(op.tag, [...(groups.get(op.tag) ?? []), op]);
  return groups;
}

function main(): void {
  const vigil = vigilOperations();
  const upstream = upstreamOperations();
  const vigilByKey = new Map(vigil.map((op) => [key(op.method, op.path), op]));
  const upstreamKeys = new Set(upstream.map((op) => key(op.method, op.path)));
  const covered = upstream.filter((op) => vigilByKey.has(key(op.method, op.path)));
  const missing = upstream.filter((op) => !vigilByKey.has(key(op.method, op.path)));
  const renamed = covered.filter((op) => vigilByKey.get(key(op.method, op.path))!.operationId !== op.operationId);
  const extensions = vigil.filter((op) => !upstreamKeys.has(key(op.method, op.path)));

  console.log(`upstream operations: ${upstream.length}; declared by Vigil: ${covered.length}; missing: ${missing.length}; Vigil extensions: ${extensions.length}`);
  for (const op of renamed) console.log(`operationId differs: ${key(op.method, op.path)} upstream ${op.operationId}, Vigil ${vigilByKey.get(key(op.method, op.path))!.operationId}`);
  if (!process.argv.includes('--write')) return;

  const tags = new Map<string, { total: number; covered: number }>();
  for (const op of upstream) {
    const t = tags.get(op.tag) ?? { total: 0, covered: 0 };
    t.total += 1;
    if (vigilByKey.has(key(op.method, op.path))) t.covered += 1;
    tags.set(op.tag, t);
  }
  const out: string[] = [START, '', `Upstream operations: **${upstream.length}**. Declared by Vigil with upstream's method, path and operationId: **${covered.length}**. Not declared: **${missing.length}**. Vigil extensions: **${extensions.length}**.`, ''];
  out.push('| upstream tag | operations | declared by Vigil |', '|---|---|---|');
  for (const [tag, t] of [...tags].sort((a, b) => b[1].total - a[1].total || a[0].localeCompare(b[0]))) out.push(`| ${tag} | ${t.total} | ${t.covered} |`);
  out.push('', '### Upstream operations Vigil declares', '');
  for (const [tag, ops] of byTag(covered)) out.push(`**${tag}**`, '', ...ops.map(line), '');
  out.push('### Upstream operations Vigil does not declare', '');
  for (const [tag, ops] of byTag(missing)) out.push(`**${tag}**`, '', ...ops.map(line), '');
  out.push('### Vigil extensions (not upstream operations)', '');
  out.push(...[...extensions].sort((a, b) => a.path.localeCompare(b.path)).map(line), '', END);

  const doc = readFileSync(docPath, 'utf8');
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < 0) throw new Error(`${docPath} lacks the generated-section markers`);
  writeFileSync(docPath, doc.slice(0, from) + out.join('\n') + doc.slice(to + END.length));
  console.log(`wrote ${docPath}`);
}

main();
