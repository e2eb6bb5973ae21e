import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsvReadResult } from '../../../../src/vulns/osv/archive.js';
import { parseOsvRecord } from '../../../../src/vulns/osv/record.js';
import type { OsvRecord } from '../../../../src/vulns/osv/types.js';
import { isAffected } from '../../../../src/vulns/osv/ranges.js';
import { ALPINE_SECDB_MODIFIED, extractIds, readAlpineSecdbPath, secfixRanges } from '../../../../src/vulns/sources/alpine-secdb.js';
import { apkComparator, compareApkVersions } from '../../../../src/ecosystems/apk/versions.js';

/** A secdb file as alpine-secdb publishes them (header fields the reader ignores included). */
function secdb(release: string, repo: string, packages: string): string {
  return [
    '---',
    `distroversion: ${release}`,
    `reponame: ${repo}`,
    'archs:',
    '  - x86_64',
    'urlprefix: http://dl-cdn.alpinelinux.org/alpine',
    'apkurl: "{{urlprefix}}/{{distroversion}}/{{reponame}}/{{arch}}/{{pkg.name}}-{{pkg.ver}}.apk"',
    'packages:',
    packages,
  ].join('\n');
}

const V311_MAIN = secdb(
  'v3.11',
  'main',
  `  - pkg:
      name: ansible
      secfixes:
        2.9.3-r0:
          - CVE-2019-14904
          - CVE-2019-14905
        2.8.6-r0:
          - CVE-2019-14846
  - pkg:
      name: xen
      secfixes:
        4.13.1-r0:
          - CVE-2020-11739 XSA-314
          - XSA-316
        4.10.0-r1:
          - CVE-????-?????  XSA-295
  - pkg:
      name: db
      secfixes:
      # not affected: Oracle's later releases
        "0":
          - CVE-2016-0682
          - CVE-2019-14904
  - pkg:
      name: openssl
      secfixes:
        1.1.1d-r2:
          - CVE-2019-1551
        1.10-r0:
          - CVE-2019-1552 (was fixed in libressl)
          - CVE_2019-2426
          - see upstream
`,
);

const V310_MAIN = secdb(
  'v3.10',
  'main',
  `  - pkg:
      name: ansible
      secfixes:
        2.8.6-r0:
          - CVE-2019-14846
          - CVE-2019-14846
  - pkg:
      name: rsync
      secfixes:
        3.1.3-r0:
          - CVE-2017-17434-1
          - CVE-2017-17434-2
`,
);

async function collect(result: OsvReadResult): Promise<OsvRecord[]> {
  const out: OsvRecord[] = [];
  for await (const r of result.records) out.push(r);
  return out;
}

function byId(records: OsvRecord[], id: string): OsvRecord {
  const record = records.find((r) => r.id === id);
  if (!record) throw new Error(`no record ${id}`);
  return record;
}

/** `Alpine:v3.11/ansible<2.9.3-r0` for each affected entry, for compact assertions. */
function affectedSummary(record: OsvRecord): string[] {
  return record.affected.map((a) => {
    const events = a.ranges.flatMap((r) => r.events.map((e) => `${e.kind}:${e.version}`)).join(',');
    return `${a.package?.ecosystem.raw}/${a.package?.name} ${events}`;
  });
}

let dir: string;
let tree: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-secdb-'));
  tree = join(dir, 'secdb');
  await mkdir(join(tree, 'v3.10'), { recursive: true });
  await mkdir(join(tree, 'v3.11'), { recursive: true });
  await writeFile(join(tree, 'v3.10', 'main.yaml'), V310_MAIN);
  await writeFile(join(tree, 'v3.11', 'main.yaml'), V311_MAIN);
  await writeFile(join(tree, 'v3.11', 'community.yml'), secdb('v3.11', 'community', `  - pkg:\n      name: zabbix\n      secfixes:\n        4.4.5-r0:\n          - ZBX-17085\n          - GHSA-AbCd-2345-wxyz\n`));
  await writeFile(join(tree, 'v3.11', 'broken.yaml'), 'distroversion: v3.11\npackages:\n  - pkg: [unclosed\n');
  await writeFile(join(tree, 'v3.11', 'README.md'), '# not yaml\n');
  await writeFile(join(tree, 'v3.11', 'index.json'), '{}');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readAlpineSecdbPath on one file', () => {
  it('makes one OSV record per id, with an Alpine affected entry per package and fixed version', async () => {
    const path = join(tree, 'v3.11', 'main.yaml');
    const result = readAlpineSecdbPath(path);
    const records = await collect(result);
    expect(records.map((r) => r.id)).toEqual([
      'ALPINE-CVE-2019-14846',
      'ALPINE-CVE-2019-14904',
      'ALPINE-CVE-2019-14905',
      'ALPINE-CVE-2019-1551',
      'ALPINE-CVE-2019-1552',
      'ALPINE-CVE-2020-11739',
      'ALPINE-XSA-295',
      'ALPINE-XSA-314',
      'ALPINE-XSA-316',
    ]);
    const record = byId(records, 'ALPINE-CVE-2019-14904');
    expect(record).toEqual({
      id: 'ALPINE-CVE-2019-14904',
      modified: ALPINE_SECDB_MODIFIED,
      aliases: ['CVE-2019-14904'],
      related: [],
      severity: [],
      references: [],
      affected: [
        {
          package: { name: 'ansible', ecosystem: { ecosystem: 'Alpine', release: '3.11', raw: 'Alpine:v3.11' } },
          ranges: [{ type: 'ECOSYSTEM', events: [{ kind: 'introduced', version: '0' }, { kind: 'fixed', version: '2.9.3-r0' }] }],
          versions: [],
          severity: [],
        },
      ],
    });
    expect(byId(records, 'ALPINE-XSA-314').aliases).toEqual([]);
    expect(result.stats.read).toBe(9);
  });

  it('keeps versions as strings (1.10 is not 1.1) and round-trips through parseOsvRecord unchanged', async () => {
    const records = await collect(readAlpineSecdbPath(join(tree, 'v3.11', 'main.yaml')));
    expect(affectedSummary(byId(records, 'ALPINE-CVE-2019-1552'))).toEqual(['Alpine:v3.11/openssl introduced:0,fixed:1.10-r0']);
    for (const record of records) {
      const json = {
        id: record.id,
        modified: record.modified,
        aliases: record.aliases,
        affected: record.affected.map((a) => ({
          package: { ecosystem: a.package!.ecosystem.raw, name: a.package!.name },
          ranges: a.ranges.map((r) => ({ type: r.type, events: r.events.map((e) => ({ [e.kind]: e.version })) })),
        })),
      };
      expect(parseOsvRecord(json)).toEqual(record);
    }
  });

  it('keeps the fix of each upstream version line when one id is listed under several fixed versions of a package', async () => {
    const path = join(dir, 'refixed.yaml');
    await writeFile(path, secdb('v3.10', 'main', `  - pkg:\n      name: lame\n      secfixes:\n        3.100-r0:\n          - CVE-2015-9099\n        3.99.5-r6:\n          - CVE-2015-9099\n`));
    const [record] = await collect(readAlpineSecdbPath(path));
    // 3.99.5-r6 patched the 3.99.5 line; 3.100-r0 fixed the newer line, which starts after every 3.99.5 build.
    expect(affectedSummary(record!)).toEqual(['Alpine:v3.10/lame introduced:0,fixed:3.99.5-r6,introduced:3.99.5~0,fixed:3.100-r0']);
    expect(record!.affected[0]!.ranges).toHaveLength(2);
    expect(record!.affected[0]!.databaseSpecific).toEqual({ secfixes: ['3.99.5-r6', '3.100-r0'] });
  });

  it('adds no affected entry for a fixed version of 0 (never affected)', async () => {
    const records = await collect(readAlpineSecdbPath(join(tree, 'v3.11', 'main.yaml')));
    // CVE-2016-0682 is only listed under "0": nothing to match, so no record.
    expect(records.some((r) => r.id === 'ALPINE-CVE-2016-0682')).toBe(false);
    // CVE-2019-14904 is also under "0" for db: only the ansible fix shows.
    expect(affectedSummary(byId(records, 'ALPINE-CVE-2019-14904'))).toEqual(['Alpine:v3.11/ansible introduced:0,fixed:2.9.3-r0']);
  });

  it('skips and counts lines that name no id, with file and field', async () => {
    const path = join(tree, 'v3.11', 'main.yaml');
    const result = readAlpineSecdbPath(path);
    await collect(result);
    expect(result.stats.skipped).toBe(2);
    expect(result.stats.errors).toEqual([
      { source: path, message: 'no vulnerability id in "CVE_2019-2426"', field: 'packages[3].pkg.secfixes["1.10-r0"][1]' },
      { source: path, message: 'no vulnerability id in "see upstream"', field: 'packages[3].pkg.secfixes["1.10-r0"][2]' },
    ]);
  });
});

/**
 * busybox in Alpine 3.11's main repository as secdb publishes it: CVE-2019-5747 was patched on the 1.29.3 line
 * (1.29.3-r10) and again on the 1.30.1 line (1.30.1-r2), so it is listed under both fixed versions.
 */
const V311_BUSYBOX = secdb(
  'v3.11',
  'main',
  `  - pkg:
      name: busybox
      secfixes:
        1.30.1-r2:
          - CVE-2019-5747
        1.29.3-r10:
          - CVE-2018-20679
          - CVE-2019-5747
        1.27.2-r4:
          - CVE-2017-16544
          - CVE-2017-15873
          - CVE-2017-15874
`,
);

describe('an id fixed on several version lines of one release', () => {
  let busybox: OsvRecord[];
  beforeAll(async () => {
    const path = join(dir, 'busybox-v3.11.yaml');
    await writeFile(path, V311_BUSYBOX);
    busybox = await collect(readAlpineSecdbPath(path));
  });

  const verdict = (record: OsvRecord, version: string) => {
    const v = isAffected(version, record.affected[0]!, apkComparator);
    return v.affected ? `affected, fixed in ${v.fixedIn?.join(',')}` : 'not affected';
  };

  it('keeps every fix as its own range, the newer line starting after every build of the older one', () => {
    const record = byId(busybox, 'ALPINE-CVE-2019-5747');
    expect(affectedSummary(record)).toEqual(['Alpine:v3.11/busybox introduced:0,fixed:1.29.3-r10,introduced:1.29.3~0,fixed:1.30.1-r2']);
    expect(record.affected[0]!.ranges.map((r) => r.events.map((e) => `${e.kind}:${e.version}`))).toEqual([
      ['introduced:0', 'fixed:1.29.3-r10'],
      ['introduced:1.29.3~0', 'fixed:1.30.1-r2'],
    ]);
    // What secdb said, in apk order, whatever the ranges made of it.
    expect(record.affected[0]!.databaseSpecific).toEqual({ secfixes: ['1.29.3-r10', '1.30.1-r2'] });
    // An id listed once keeps the plain single range and no extra field.
    expect(affectedSummary(byId(busybox, 'ALPINE-CVE-2018-20679'))).toEqual(['Alpine:v3.11/busybox introduced:0,fixed:1.29.3-r10']);
    expect(byId(busybox, 'ALPINE-CVE-2018-20679').affected[0]!.databaseSpecific).toBeUndefined();
  });

  it.each([
    ['1.27.2-r4', 'affected, fixed in 1.29.3-r10'],
    ['1.29.3-r9', 'affected, fixed in 1.29.3-r10'],
    ['1.29.3', 'affected, fixed in 1.29.3-r10'],
    ['1.29.3-r10', 'not affected'],
    ['1.29.3-r11', 'not affected'],
    ['1.29.3-r100', 'not affected'],
    // Builds between the two lines carry neither patch.
    ['1.29.3_p1-r0', 'affected, fixed in 1.30.1-r2'],
    ['1.29.4-r0', 'affected, fixed in 1.30.1-r2'],
    ['1.30.0-r0', 'affected, fixed in 1.30.1-r2'],
    ['1.30.1-r0', 'affected, fixed in 1.30.1-r2'],
    ['1.30.1-r1', 'affected, fixed in 1.30.1-r2'],
    ['1.30.1-r2', 'not affected'],
    ['1.30.1-r3', 'not affected'],
    ['1.31.1-r9', 'not affected'],
  ])('busybox %s on 3.11: CVE-2019-5747 %s', (version, expected) => {
    expect(verdict(byId(busybox, 'ALPINE-CVE-2019-5747'), version)).toBe(expected);
  });

  it('CVE-2018-20679 (listed once) is fixed on every line from 1.29.3-r10 on', () => {
    const record = byId(busybox, 'ALPINE-CVE-2018-20679');
    expect(verdict(record, '1.29.3-r9')).toBe('affected, fixed in 1.29.3-r10');
    expect(verdict(record, '1.30.1-r1')).toBe('not affected');
  });
});

describe('secfixRanges', () => {
  const summary = (fixes: string[]) => secfixRanges(fixes).map((r) => r.events.map((e) => Object.entries(e)[0]!.join(':')).join(','));

  it('is one range per version line, in apk order, whatever order the fixes come in', () => {
    expect(summary(['2.4.2-r0', '2.2.10-r0'])).toEqual(['introduced:0,fixed:2.2.10-r0', 'introduced:2.2.10~0,fixed:2.4.2-r0']);
    expect(summary(['2.0-r0', '1.0-r5', '1.1-r1', '1.0-r2'])).toEqual([
      'introduced:0,fixed:1.0-r2',
      'introduced:1.0~0,fixed:1.1-r1',
      'introduced:1.1~0,fixed:2.0-r0',
    ]);
    expect(summary(['1.2.3-r4'])).toEqual(['introduced:0,fixed:1.2.3-r4']);
  });

  it('ends a line at its first fix: a later revision of the same line listing the id again adds no vulnerable build', () => {
    // ghostscript 9.26-r1 and 9.26-r2 both list CVE-2019-6116 in v3.11: 9.26-r1 is already fixed.
    expect(summary(['9.26-r2', '9.26-r1'])).toEqual(['introduced:0,fixed:9.26-r1']);
    expect(summary(['1.0-r1', '1.0-r1'])).toEqual(['introduced:0,fixed:1.0-r1']);
  });

  it('starts a newer line at the least apk version above every build of the older one', () => {
    const [, newer] = secfixRanges(['1.29.3-r10', '1.30.1-r2']);
    const start = (newer!.events[0] as { introduced: string }).introduced;
    expect(apkComparator.isValid(start)).toBe(true);
    // The older line (pre-releases of it sort lower still) ...
    for (const v of ['1.29.3_rc1', '1.29.3', '1.29.3-r0', '1.29.3-r10', '1.29.3-r99999999']) expect(compareApkVersions(v, start), v).toBeLessThan(0);
    // ... and anything after it: hashes, post-release suffixes, letters, further numbers, later versions.
    for (const v of ['1.29.3~0', '1.29.3~0-r1', '1.29.3~1a', '1.29.3_cvs', '1.29.3_p0', '1.29.3a', '1.29.3.0', '1.29.4_rc1', '1.30.1-r1']) {
      expect(compareApkVersions(v, start), v).toBeGreaterThanOrEqual(0);
    }
    // A line that already ends in a commit hash continues the hash.
    expect(summary(['1.0~ab-r1', '1.1-r0'])).toEqual(['introduced:0,fixed:1.0~ab-r1', 'introduced:1.0~ab0,fixed:1.1-r0']);
    // A fix that is that least version has nothing below it off the older line: no (empty) range for it.
    expect(summary(['1.0-r1', '1.0~0', '2.0-r0'])).toEqual(['introduced:0,fixed:1.0-r1', 'introduced:1.0~00,fixed:2.0-r0']);
  });

  it('starts a newer line at the older fix itself when that fix is no apk version (no line can be read from it)', () => {
    // v3.8 to v3.11 list phpmyadmin fixes as `4.8.0.-r1`.
    expect(summary(['4.8.0.-r1', '4.9.0-r0'])).toEqual(['introduced:0,fixed:4.8.0.-r1', 'introduced:4.8.0.-r1,fixed:4.9.0-r0']);
  });
});

describe('readAlpineSecdbPath on a directory', () => {
  it('merges the same id across releases and files, in sorted file order', async () => {
    const result = readAlpineSecdbPath(tree);
    const records = await collect(result);
    expect(affectedSummary(byId(records, 'ALPINE-CVE-2019-14846'))).toEqual([
      'Alpine:v3.10/ansible introduced:0,fixed:2.8.6-r0',
      'Alpine:v3.11/ansible introduced:0,fixed:2.8.6-r0',
    ]);
    // Both parts of a two-part fix name the same CVE: one entry.
    expect(affectedSummary(byId(records, 'ALPINE-CVE-2017-17434'))).toEqual(['Alpine:v3.10/rsync introduced:0,fixed:3.1.3-r0']);
    expect(byId(records, 'ALPINE-ZBX-17085').affected[0]!.package!.ecosystem.raw).toBe('Alpine:v3.11');
    expect(byId(records, 'ALPINE-GHSA-abcd-2345-wxyz').aliases).toEqual([]);
    expect(records.map((r) => r.id)).toEqual([...records.map((r) => r.id)].sort());
    expect(result.stats.read).toBe(records.length);
  });

  it('skips a malformed YAML file and counts it by path, reading the others', async () => {
    const result = readAlpineSecdbPath(tree);
    const records = await collect(result);
    expect(records.length).toBe(12); // 9 ids in v3.11/main, one more in v3.10/main, two in v3.11/community
    const fileErrors = result.stats.errors.filter((e) => e.field === undefined);
    expect(fileErrors).toEqual([{ source: join(tree, 'v3.11', 'broken.yaml'), message: expect.stringMatching(/^invalid YAML at line \d+: /) }]);
    expect(result.stats.skipped).toBe(3);
  });

  it('gives the same records whatever order the files are read in', async () => {
    const other = join(dir, 'reordered');
    await mkdir(join(other, 'a'), { recursive: true });
    await mkdir(join(other, 'b'), { recursive: true });
    await writeFile(join(other, 'a', 'x.yaml'), V311_MAIN);
    await writeFile(join(other, 'b', 'x.yaml'), V310_MAIN);
    const reordered = await collect(readAlpineSecdbPath(other));
    const original = await collect(readAlpineSecdbPath(tree));
    expect(reordered.map((r) => r.id)).toEqual(original.filter((r) => !/ZBX|GHSA/.test(r.id)).map((r) => r.id));
  });

  it('does not follow a symlinked directory', async () => {
    const looped = join(dir, 'looped');
    await mkdir(looped);
    await writeFile(join(looped, 'main.yaml'), V310_MAIN);
    await symlink(looped, join(looped, 'self'));
    const records = await collect(readAlpineSecdbPath(looped));
    expect(records.map((r) => r.id)).toEqual(['ALPINE-CVE-2017-17434', 'ALPINE-CVE-2019-14846']);
  });
});

describe('readAlpineSecdbPath with unusual content', () => {
  async function readOne(name: string, content: string) {
    const path = join(dir, name);
    await writeFile(path, content);
    const result = readAlpineSecdbPath(path);
    return { path, records: await collect(result), stats: result.stats };
  }

  it.each([
    ['a YAML list', '- a\n- b\n', /not an Alpine secdb file/],
    ['no distroversion', 'reponame: main\npackages: []\n', /distroversion/],
    ['a bad distroversion', 'distroversion: "three eleven"\npackages: []\n', /distroversion/],
    ['packages as a mapping', 'distroversion: v3.11\npackages:\n  a: b\n', /packages: expected a list/],
    ['two YAML documents', 'distroversion: v3.11\npackages: []\n---\ndistroversion: v3.12\n', /invalid YAML/],
    ['a duplicate key', 'distroversion: v3.11\ndistroversion: v3.12\npackages: []\n', /invalid YAML/],
    ['an empty file', '', /not an Alpine secdb file/],
  ])('skips a file with %s', async (_name, content, message) => {
    const { path, records, stats } = await readOne(`odd-${_name.replace(/\W+/g, '-')}.yaml`, content);
    expect(records).toEqual([]);
    expect(stats.skipped).toBe(1);
    expect(stats.errors[0]!.source).toBe(path);
    expect(stats.errors[0]!.message).toMatch(message);
  });

  it('accepts an empty packages list and a release without the v', async () => {
    const empty = await readOne('empty.yaml', 'distroversion: v3.11\npackages:\n');
    expect(empty.stats).toEqual({ read: 0, skipped: 0, errors: [] });
    const bare = await readOne('bare.yaml', 'distroversion: 3.12\npackages:\n  - pkg:\n      name: musl\n      secfixes:\n        1.1.24-r3: CVE-2020-28928\n');
    expect(affectedSummary(bare.records[0]!)).toEqual(['Alpine:v3.12/musl introduced:0,fixed:1.1.24-r3']);
  });

  it('skips packages without a name and non-string lines, keeping the rest of the file', async () => {
    const { records, stats } = await readOne(
      'partial.yaml',
      `distroversion: v3.11
packages:
  - pkg:
      secfixes:
        1.0-r0:
          - CVE-2020-0001
  - nopkg: true
  - pkg:
      name: good
      secfixes:
        1.0-r0:
          - [nested]
          -
          - cve-2020-0002, CVE-2020-0003;
  - pkg:
      name: nofixes
  - pkg:
      name: badfixes
      secfixes: [a, b]
`,
    );
    expect(records.map((r) => r.id)).toEqual(['ALPINE-CVE-2020-0002', 'ALPINE-CVE-2020-0003']);
    expect(stats.skipped).toBe(5);
    expect(stats.errors.map((e) => [e.field, e.message])).toEqual([
      ['packages[0].pkg', 'expected a pkg with a name'],
      ['packages[1].pkg', 'expected a pkg with a name'],
      ['packages[2].pkg.secfixes["1.0-r0"][0]', 'no vulnerability id in a nested item'],
      ['packages[2].pkg.secfixes["1.0-r0"][1]', 'no vulnerability id in an empty item'],
      ['packages[4].pkg.secfixes', 'secfixes: expected a mapping of fixed version to ids'],
    ]);
  });

  it('keeps at most maxErrors reasons but counts them all', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `          - junk${i}`).join('\n');
    const path = join(dir, 'junk.yaml');
    await writeFile(path, `distroversion: v3.11\npackages:\n  - pkg:\n      name: x\n      secfixes:\n        1.0-r0:\n${lines}\n`);
    const result = readAlpineSecdbPath(path, { maxErrors: 5 });
    await collect(result);
    expect(result.stats.skipped).toBe(30);
    expect(result.stats.errors).toHaveLength(5);
  });

  it('throws for a path that does not exist or cannot be read', async () => {
    await expect(collect(readAlpineSecdbPath(join(dir, 'missing')))).rejects.toMatchObject({ code: 'ENOENT' });
    // A file of the tree that cannot be read fails the feed rather than silently dropping a release.
    const dangling = join(dir, 'dangling');
    await mkdir(dangling);
    await writeFile(join(dangling, 'a.yaml'), V310_MAIN);
    await symlink(join(dangling, 'nowhere.yaml'), join(dangling, 'b.yaml'));
    await expect(collect(readAlpineSecdbPath(dangling))).rejects.toMatchObject({ code: 'ENOENT' });
    if (process.getuid?.() === 0) return; // root reads anything
    const locked = join(dir, 'locked.yaml');
    await writeFile(locked, V310_MAIN);
    await chmod(locked, 0o000);
    await expect(collect(readAlpineSecdbPath(locked))).rejects.toMatchObject({ code: 'EACCES' });
  });
});

describe('extractIds', () => {
  it.each([
    ['CVE-2019-14904', ['CVE-2019-14904']],
    ['  CVE-2016-6263', ['CVE-2016-6263']],
    ['CVE-2017-8904 XSA-214', ['CVE-2017-8904', 'XSA-214']],
    ['CVE-2018-3665   XSA-267', ['CVE-2018-3665', 'XSA-267']],
    ['CVE-2017-14450 TALOS-2017-0499', ['CVE-2017-14450', 'TALOS-2017-0499']],
    ['CVE-2018-16228 (HNCP)', ['CVE-2018-16228']],
    ['CVE-2018-14879 (tcpdump -V)', ['CVE-2018-14879']],
    ['CVE-2017-17434-1', ['CVE-2017-17434']],
    ['CVE-2017-8073.patch', ['CVE-2017-8073']],
    ['(CVE-2020-1234, CVE-2020-1235)', ['CVE-2020-1234', 'CVE-2020-1235']],
    ['cve-2020-1234', ['CVE-2020-1234']],
    ['ZBX-1234', ['ZBX-1234']],
    ['GHSA-jfh8-c2jp-5v3q', ['GHSA-jfh8-c2jp-5v3q']],
    ['CVE-????-?????  XSA-295', ['XSA-295']],
    ['CVE-2020-1234 CVE-2020-1234', ['CVE-2020-1234']],
    ['CVE_2019-2426', []],
    ['CVE 2018-16859', []],
    ['wnpa-sec-2017-18', []],
    ['see upstream 802.11 IKEv1', []],
    ['', []],
  ])('%j → %j', (line, ids) => {
    expect(extractIds(line)).toEqual(ids);
  });
});
