/** Issue 17: the "analysis completed" log line counts the image's packages, in total and per type. */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import type { FileSpec } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
const logLines: string[] = [];

const ALPINE_WITH_APP: FileSpec[][] = [
  [
    { path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n' },
    { path: 'lib/apk/db/installed', content: 'C:Q1abc=\nP:musl\nV:1.2.4_git20230717-r4\nA:x86_64\nL:MIT\no:musl\n\nC:Q1def=\nP:busybox\nV:1.36.1-r15\nA:x86_64\nL:GPL-2.0-only\no:busybox\n\n' },
  ],
  [
    { path: 'app/node_modules/left-pad/package.json', content: JSON.stringify({ name: 'left-pad', version: '1.3.0', license: 'WTFPL' }) },
    { path: 'app/node_modules/ms/package.json', content: JSON.stringify({ name: 'ms', version: '2.1.3', license: 'MIT' }) },
    { path: 'app/node_modules/debug/package.json', content: JSON.stringify({ name: 'debug', version: '4.3.4', license: 'MIT' }) },
  ],
];

beforeAll(async () => {
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  server = await startTestServer({}, { logs });
});
afterAll(async () => {
  await server?.close();
});

describe('the analysis log line', () => {
  it('counts every package, by type', async () => {
    await analyzeArchiveImage(server, ALPINE_WITH_APP, 'example.com/team/app:1');
    const completed = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'analysis completed');
    expect(completed).toEqual([expect.objectContaining({ job_kind: 'analyze_image', packages: 5, packages_by_type: { apk: 2, npm: 3 } })]);
  });
});
