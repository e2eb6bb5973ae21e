/**
 * A syft-format SBOM of a source tree, made as syft would for a directory: every file goes through the project's
 * own catalogers (the npm cataloger reads package-lock.json); pinned requirements.txt lines, for which Vigil has
 * no cataloger (an image holds installed METADATA instead), become python packages as syft's requirements
 * cataloger reports them. The native writer then gives the document its syft shape; its source is a directory.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogedPackage } from '../../src/ecosystems/model.js';
import { ALL_CATALOGERS } from '../../src/ecosystems/registry.js';
import { toNativeSbom } from '../../src/images/sbom/index.js';

function requirementsPackages(path: string, text: string): CatalogedPackage[] {
  const out: CatalogedPackage[] = [];
  for (const line of text.split('\n')) {
    const pinned = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([A-Za-z0-9.+!-]+)\s*(?:#.*)?$/.exec(line);
    if (!pinned) continue;
    const [, name, version] = pinned as unknown as [string, string, string];
    out.push({ type: 'python', name, version, locations: [path], licenses: [], purl: `pkg:pypi/${name.toLowerCase()}@${version}`, cpes: [], metadata: {} });
  }
  return out;
}

export async function sourceTreeSbom(dir: string): Promise<Record<string, unknown>> {
  const packages: CatalogedPackage[] = [];
  for (const file of readdirSync(dir).sort()) {
    const content = readFileSync(join(dir, file));
    const path = `/${file}`;
    if (file === 'requirements.txt') packages.push(...requirementsPackages(path, content.toString('utf8')));
    for (const cataloger of ALL_CATALOGERS) {
      if (!cataloger.matches(path)) continue;
      const found = await cataloger.parse(path, content);
      packages.push(...(cataloger.finalize ? cataloger.finalize(found, undefined) : found));
    }
  }
  const native = toNativeSbom({
    image: { digest: `sha256:${'0'.repeat(64)}`, tags: [], layers: [] },
    packages: packages.map((p) => ({ ...p, sourceVersion: p.sourceVersion ?? null })),
    toolVersion: 'test',
  });
  return { ...native, source: { id: native.source.id, name: dir, type: 'directory', metadata: { path: dir } }, distro: {} };
}
