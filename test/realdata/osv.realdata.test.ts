/**
 * The OSV reader and range evaluation against real feed snapshots in ../shared/data/osv (outside the repository;
 * not part of `npm test`, whose config excludes test/realdata/**). Each block skips itself, saying so, when its
 * archive is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readOsvArchive } from '../../src/vulns/osv/archive.js';
import { isAffected } from '../../src/vulns/osv/ranges.js';
import { isWithdrawn } from '../../src/vulns/osv/record.js';
import type { OsvRecord } from '../../src/vulns/osv/types.js';
import type { VersionComparator } from '../../src/ecosystems/shared/comparator.js';

const DATA = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/data/osv');
const PYPI_ZIP = resolve(DATA, 'PyPI/all.zip');
const GO_ZIP = resolve(DATA, 'Go/all.zip');

function present(path: string): boolean {
  if (existsSync(path)) return true;
  console.warn(`[realdata] ${path} not found; skipping (../shared/data is not part of the repository)`);
  return false;
}

/** Release segments compared numerically, anything after them lexically: enough to order plain x.y.z releases. */
const releaseNumbers: VersionComparator = {
  name: 'test-release-numbers',
  isValid: (v) => /^v?\d+(\.\d+)*$/.test(v),
  compare(a, b) {
    const split = (v: string) => {
      const m = /^v?(\d+(?:\.\d+)*)(.*)$/.exec(v);
      return m ? { nums: m[1]!.split('.').map(Number), rest: m[2]! } : { nums: [], rest: v };
    };
    const x = split(a);
    const y = split(b);
    for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
      const c = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
      if (c !== 0) return Math.sign(c);
    }
    // A suffix (rc1, -beta) marks a pre-release here, below the bare release.
    if (x.rest === y.rest) return 0;
    if (x.rest === '') return 1;
    if (y.rest === '') return -1;
    return x.rest < y.rest ? -1 : 1;
  },
};

function jsonEntryCount(zipPath: string): number {
  let count = 0;
  unzipSync(readFileSync(zipPath), {
    filter: (file) => {
      if (file.name.toLowerCase().endsWith('.json')) count += 1;
      return false;
    },
  });
  return count;
}

async function readAll(zipPath: string) {
  const result = readOsvArchive(zipPath, { maxErrors: 20 });
  const records: OsvRecord[] = [];
  for await (const record of result.records) records.push(record);
  return { records, stats: result.stats };
}

describe.runIf(present(PYPI_ZIP))('OSV PyPI archive (pypa/advisory-database)', () => {
  it('parses or counts every record, and ranges say requests 2.28.1 is affected by the 2023 proxy-auth leak', async () => {
    const { records, stats } = await readAll(PYPI_ZIP);
    console.info(`[realdata] PyPI: read ${stats.read}, skipped ${stats.skipped}`, stats.errors);
    expect(stats.read + stats.skipped).toBe(jsonEntryCount(PYPI_ZIP));
    expect(stats.skipped, JSON.stringify(stats.errors)).toBe(0);
    expect(records.filter(isWithdrawn).length).toBeGreaterThan(0);

    // Scan for the requests records whose ECOSYSTEM ranges (not just versions[]) contain 2.28.1.
    const hits = records
      .filter((r) => !isWithdrawn(r))
      .flatMap((r) => r.affected
        .filter((a) => a.package?.ecosystem.ecosystem === 'PyPI' && a.package.name === 'requests')
        .map((a) => ({ id: r.id, aliases: r.aliases, verdict: isAffected('2.28.1', a, releaseNumbers) })))
      .filter((h) => h.verdict.matchedBy === 'range');
    const leak = hits.find((h) => h.aliases.includes('CVE-2023-32681'));
    expect(leak, JSON.stringify(hits)).toBeDefined();
    expect(leak!.id).toMatch(/^PYSEC-/);
    expect(leak!.verdict.fixedIn).toEqual(['2.31.0']);
    expect(leak!.verdict.window).toMatchObject({ rangeType: 'ECOSYSTEM', fixed: '2.31.0' });

    const record = records.find((r) => r.id === leak!.id)!;
    const affected = record.affected.find((a) => a.package?.name === 'requests')!;
    expect(isAffected('2.31.0', affected, releaseNumbers).affected).toBe(false);
    // The same answer from the ranges alone, without the explicit versions list.
    expect(isAffected('2.28.1', { ...affected, versions: [] }, releaseNumbers).affected).toBe(true);
  });
});

describe.runIf(present(GO_ZIP))('OSV Go archive (golang/vulndb)', () => {
  it('parses or counts every record, and evaluates a record with several windows in one range', async () => {
    const { records, stats } = await readAll(GO_ZIP);
    console.info(`[realdata] Go: read ${stats.read}, skipped ${stats.skipped}`, stats.errors);
    expect(stats.read + stats.skipped).toBe(jsonEntryCount(GO_ZIP));
    expect(stats.skipped, JSON.stringify(stats.errors)).toBe(0);

    // Pick a record whose single SEMVER range holds three introduced/fixed windows and check each window's edges.
    const multi = records.find((r) => r.affected.some((a) =>
      a.ranges.some((g) => g.type === 'SEMVER' && g.events.filter((e) => e.kind === 'introduced').length >= 3
        && g.events.filter((e) => e.kind === 'fixed').length >= 3)));
    expect(multi).toBeDefined();
    const affected = multi!.affected.find((a) => a.ranges.some((g) => g.events.length >= 6))!;
    const events = affected.ranges.find((g) => g.events.length >= 6)!.events;
    for (let i = 0; i + 1 < events.length; i++) {
      const [open, close] = [events[i]!, events[i + 1]!];
      if (open.kind !== 'introduced' || close.kind !== 'fixed') continue;
      const inside = isAffected(open.version === '0' ? '0.0.0' : open.version, affected, releaseNumbers);
      expect(inside.affected, `${multi!.id} at ${open.version}`).toBe(true);
      expect(inside.fixedIn).toContain(close.version);
      expect(isAffected(close.version, affected, releaseNumbers).affected, `${multi!.id} at ${close.version}`).toBe(
        // The fix of one window may be the start of the next only if the record says so.
        events.some((e) => e.kind === 'introduced' && e.version === close.version),
      );
    }
  });
});
