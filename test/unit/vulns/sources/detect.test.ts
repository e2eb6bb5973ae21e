import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFeedKind, feedNameFromLocation } from '../../../../src/vulns/sources/detect.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-detect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  return path;
}

const KEV_HEAD = '{\n    "title": "CISA Catalog of Known Exploited Vulnerabilities",\n    "catalogVersion": "2025.08.25",\n    "vulnerabilities": []\n}';
const OSV_RECORD = JSON.stringify({ id: 'GHSA-xxxx-xxxx-xxxx', modified: '2099-01-01T00:00:00Z', aliases: ['CVE-2099-0001'] });

describe('detectFeedKind', () => {
  it('reads the kind of a file from its extension where that is unambiguous', async () => {
    expect(await detectFeedKind(await file('PyPI/all.zip', 'PK\u0003\u0004'))).toBe('osv');
    expect(await detectFeedKind(await file('ALL.ZIP', ''))).toBe('osv');
    expect(await detectFeedKind(await file('v3.11/main.yaml', 'distroversion: v3.11\n'))).toBe('alpine-secdb');
    expect(await detectFeedKind(await file('community.YML', ''))).toBe('alpine-secdb');
    expect(await detectFeedKind(await file('epss.csv', 'cve,epss,percentile\n'))).toBe('epss');
    expect(await detectFeedKind(await file('epss_scores-current.csv.gz', gzipSync('cve,epss,percentile\n')))).toBe('epss');
  });

  it('tells KEV from OSV JSON by the first bytes', async () => {
    expect(await detectFeedKind(await file('known_exploited_vulnerabilities.json', KEV_HEAD))).toBe('kev');
    expect(await detectFeedKind(await file('entries.json', '[{"cveID": "CVE-2099-0001"}]'))).toBe('kev');
    expect(await detectFeedKind(await file('GHSA-xxxx-xxxx-xxxx.json', OSV_RECORD))).toBe('osv');
    expect(await detectFeedKind(await file('records.json', `[${OSV_RECORD}]`))).toBe('osv');
  });

  it('only looks at the first 64 KiB', async () => {
    const late = `{"padding": "${'x'.repeat(70 * 1024)}", "catalogVersion": "1"}`;
    expect(await detectFeedKind(await file('late.json', late))).toBe('osv');
  });

  it('sniffs files without a telling extension', async () => {
    expect(await detectFeedKind(await file('download', gzipSync('anything')))).toBe('epss');
    expect(await detectFeedKind(await file('scores', '#model_version:v2025.03.14,score_date:2025-11-20T12:55:00Z\ncve,epss,percentile\n'))).toBe('epss');
    expect(await detectFeedKind(await file('scores2', 'cve,epss,percentile\r\nCVE-2024-1,0.1,0.2\r\n'))).toBe('epss');
    expect(await detectFeedKind(await file('catalog', KEV_HEAD))).toBe('kev');
    expect(await detectFeedKind(await file('record', OSV_RECORD))).toBe('osv');
    expect(await detectFeedKind(await file('empty', ''))).toBe('osv');
    expect(await detectFeedKind(await file('feed.json.gz', gzipSync(KEV_HEAD)))).toBe('epss');
  });

  it('reads a directory of YAML only as Alpine secdb, any other directory as OSV', async () => {
    const secdb = join(dir, 'alpine-secdb');
    await file('alpine-secdb/v3.10/main.yaml', '');
    await file('alpine-secdb/v3.11/community.yml', '');
    await file('alpine-secdb/README.md', '');
    expect(await detectFeedKind(secdb)).toBe('alpine-secdb');

    await file('advisories/a/GHSA-1.json', OSV_RECORD);
    await file('advisories/.github/workflow.yaml', '');
    expect(await detectFeedKind(join(dir, 'advisories'))).toBe('osv');

    await file('nothing/README.md', '');
    expect(await detectFeedKind(join(dir, 'nothing'))).toBe('osv');
    await mkdir(join(dir, 'empty-dir'));
    expect(await detectFeedKind(join(dir, 'empty-dir'))).toBe('osv');
  });

  it('does not enter symlinked directories', async () => {
    await file('linked/main.yaml', '');
    await file('elsewhere/x.json', '{}');
    await symlink(join(dir, 'elsewhere'), join(dir, 'linked', 'other'));
    await symlink(join(dir, 'linked'), join(dir, 'linked', 'self'));
    expect(await detectFeedKind(join(dir, 'linked'))).toBe('alpine-secdb');
  });

  it('throws for a missing path', async () => {
    await expect(detectFeedKind(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('feedNameFromLocation', () => {
  it.each([
    ['https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip', 'pypi'],
    ['/data/kev/known_exploited_vulnerabilities.json', 'known_exploited_vulnerabilities'],
    ['https://epss.cyentia.com/epss_scores-current.csv.gz', 'epss_scores-current'],
    ['/mirror/alpine-secdb', 'alpine-secdb'],
    ['/mirror/alpine-secdb/', 'alpine-secdb'],
    ['https://osv-vulnerabilities.storage.googleapis.com/crates.io/all.zip', 'crates.io'],
    ['https://osv-vulnerabilities.storage.googleapis.com/Red%20Hat/all.zip', 'red-hat'],
    ['https://osv-vulnerabilities.storage.googleapis.com/Ubuntu:22.04:LTS/all.zip', 'ubuntu-22.04-lts'],
    ['https://example.com/feeds/Go.zip?token=abc#x', 'go'],
    ['/data/alpine-secdb/v3.11/main.yaml', 'main'],
    ['./secdb/community.YML', 'community'],
    ['C:\\feeds\\KEV.json', 'kev'],
    ['all.zip', 'all'],
    ['https://example.com/', 'feed'],
    ['https://example.com', 'feed'],
    ['', 'feed'],
    ['/', 'feed'],
    ['/data/.json', 'feed'],
    ['/data/***.json', 'feed'],
    ['/data/--Name With Spaces--.json', 'name-with-spaces'],
    [`/data/${'a'.repeat(63)}--b.json`, 'a'.repeat(63)],
    [`/data/${'x'.repeat(100)}.json`, 'x'.repeat(64)],
  ])('%s → %s', (location, name) => {
    expect(feedNameFromLocation(location)).toBe(name);
  });

  it('always gives a name of allowed characters', () => {
    for (const location of ['\u0000', '/ä/ö/ü.json', 'https://x.invalid/%E2%98%83.csv.gz', '////', 'C:\\']) {
      expect(feedNameFromLocation(location)).toMatch(/^[a-z0-9._-]{1,64}$/);
    }
  });
});
