/**
 * Alpine secdb end to end: a secdb tree (YAML written here in the shape alpinelinux/alpine-secdb publishes)
 * configured by VIGIL_FEED_SOURCES and synced through the API, then an Alpine 3.11 image and SBOMs matched
 * against it. The case is secdb listing one CVE under two fixed versions of a package on two version lines of one
 * release (busybox CVE-2019-5747 in v3.11: 1.29.3-r10 and 1.30.1-r2): a build below the fix of its own line is
 * affected, a build at or above it is not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** A secdb file as alpine-secdb publishes them (header fields the reader ignores included). */
function secdb(release: string, packages: string): string {
  return [
    '---',
    `distroversion: ${release}`,
    'reponame: main',
    'archs:',
    '  - x86_64',
    'urlprefix: http://dl-cdn.alpinelinux.org/alpine',
    'apkurl: "{{urlprefix}}/{{distroversion}}/{{reponame}}/{{arch}}/{{pkg.name}}-{{pkg.ver}}.apk"',
    'packages:',
    packages,
  ].join('\n');
}

const BUSYBOX_SECFIXES = `  - pkg:
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
`;

const ALPINE_311_OS_RELEASE = 'NAME="Alpine Linux"\nID=alpine\nVERSION_ID=3.11.6\nPRETTY_NAME="Alpine Linux v3.11"\n';

function apkInstalled(version: string): string {
  return `C:Q1busybox=\nP:busybox\nV:${version}\nA:x86_64\nS:1000\nI:2000\nT:Size optimized toolbox of many common UNIX utilities\nU:https://busybox.net/\nL:GPL-2.0-only\no:busybox\n`;
}

let server: TestServer;
let work: string;

interface Vuln {
  vuln: string;
  package_name: string;
  package_version: string;
  fix: string;
  feed_group: string;
}

const summary = (list: Vuln[]) => list.map((v) => `${v.vuln} ${v.package_name} ${v.package_version} fix=${v.fix} ${v.feed_group}`).sort();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-secdb-api-'));
  mkdirSync(join(work, 'secdb', 'v3.11'), { recursive: true });
  writeFileSync(join(work, 'secdb', 'v3.11', 'main.yaml'), secdb('v3.11', BUSYBOX_SECFIXES));
  server = await startTestServer({ VIGIL_FEED_SOURCES: `alpine=${join(work, 'secdb')}` });
  const res = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('done');
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('Alpine secdb: a CVE fixed on two version lines of one release', () => {
  it('reports busybox 1.30.1-r1 in an Alpine 3.11 image, with the fix of its own line', async () => {
    const image = await buildImage({
      layers: [[{ path: 'etc/os-release', content: ALPINE_311_OS_RELEASE }, { path: 'lib/apk/db/installed', content: apkInstalled('1.30.1-r1') }]],
    });
    const upload = await raw(server.url, 'POST', '/v2/images/archives', {
      headers: { 'content-type': 'application/x-tar' },
      body: await dockerArchiveTar(image, { repoTags: ['registry.example.com/team/alpine:3.11'] }),
    });
    expect(upload.status).toBe(200);
    const digest = upload.json.image_digest as string;
    expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/os`);
    expect(res.status).toBe(200);
    // CVE-2018-20679 is listed under 1.29.3-r10 only: fixed for every later build.
    expect(summary(res.json.vulnerabilities)).toEqual(['ALPINE-CVE-2019-5747 busybox 1.30.1-r1 fix=1.30.1-r2 alpine:3.11']);
  });

  /** The findings of a CycloneDX SBOM holding busybox at one version on Alpine 3.11. */
  async function scan(version: string): Promise<string[]> {
    const res = await json(server.url, 'POST', '/v2/vulnerability-scan', {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      metadata: { component: { type: 'container', name: 'alpine-busybox' } },
      components: [
        { type: 'operating-system', name: 'alpine', version: '3.11.6' },
        { type: 'library', name: 'busybox', version, purl: `pkg:apk/alpine/busybox@${version}?arch=x86_64&distro=alpine-3.11.6` },
      ],
    });
    expect(res.status).toBe(200);
    return summary(res.json.vulnerabilities);
  }

  it.each([
    ['1.29.3-r9', ['ALPINE-CVE-2018-20679 busybox 1.29.3-r9 fix=1.29.3-r10 alpine:3.11', 'ALPINE-CVE-2019-5747 busybox 1.29.3-r9 fix=1.29.3-r10 alpine:3.11']],
    // Fixed on the 1.29.3 line: the range for the newer line must not reach back to it.
    ['1.29.3-r10', []],
    ['1.30.0-r0', ['ALPINE-CVE-2019-5747 busybox 1.30.0-r0 fix=1.30.1-r2 alpine:3.11']],
    ['1.30.1-r1', ['ALPINE-CVE-2019-5747 busybox 1.30.1-r1 fix=1.30.1-r2 alpine:3.11']],
    ['1.30.1-r2', []],
    ['1.31.1-r9', []],
  ])('an SBOM with busybox %s on Alpine 3.11 gets %j', async (version, expected) => {
    expect(await scan(version)).toEqual(expected);
  });
});
