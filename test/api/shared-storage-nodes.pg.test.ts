/**
 * Two nodes on one Postgres database, each with its own data dir: an archive or a feed file uploaded through one
 * is used by the other. Postgres only (a SQLite database lives in one node's data dir): files named *.pg.test.ts
 * run when VIGIL_TEST_DATABASE_URL is set (npm run test:pg, and CI's Postgres stage); vitest.config.ts leaves them
 * out of the SQLite run.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobFinished } from '../../src/jobs/worker.js';
import { storedUploadCounts } from '../support/analysis.js';
import { raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { dataDirFiles, uploadAndAnalyze } from '../support/stored-uploads.js';
import { osvRecord } from '../vulns/fixture-feed.js';

describe('two nodes on one Postgres database, each with its own data dir', () => {
  let nodeA: TestServer;
  let nodeB: TestServer;
  const finishedOnB: JobFinished[] = [];

  beforeAll(async () => {
    nodeA = await startTestServer({ VIGIL_MAX_UPLOAD_BYTES: '64mb' });
    // Node A only receives: its worker is stopped, so whatever it queues runs on node B.
    await nodeA.running.services.worker.stop();
    nodeB = await startTestServer({ VIGIL_DATABASE_URL: nodeA.running.services.config.databaseUrl!, VIGIL_JOB_POLL_MS: '20' });
    nodeB.running.services.worker.on('finished', (f: JobFinished) => finishedOnB.push(f));
    expect(nodeB.running.services.config.dataDir).not.toBe(nodeA.running.services.config.dataDir);
  }, 60_000);
  afterAll(async () => {
    await nodeB?.close();
    await nodeA?.close();
  });

  it('analyzes on node B an archive uploaded through node A, then deletes the upload', async () => {
    await uploadAndAnalyze(nodeA, nodeB, 'two-nodes');
    expect(finishedOnB).toContainEqual(expect.objectContaining({ kind: 'analyze_image', status: 'done', outcome: 'analyzed' }));
    expect(await storedUploadCounts(nodeA)).toEqual({ uploads: 0, chunks: 0 });
    expect(dataDirFiles(nodeA)).toEqual([]);
    expect(dataDirFiles(nodeB)).toEqual([]);
  });

  it('syncs on node B a feed file uploaded through node A', async () => {
    const record = JSON.stringify(osvRecord('GO-2099-0777', 'Go', 'example.com/shared', [{ introduced: '0' }, { fixed: '1.0.1' }]));
    const checksum = createHash('sha256').update(record).digest('hex');
    const synced = new Promise<JobFinished>((resolve) =>
      nodeB.running.services.worker.on('finished', (f: JobFinished) => f.kind === 'feed_sync' && resolve(f)),
    );
    const res = await raw(nodeA.url, 'POST', `/v2/system/feeds/shared-go?version=1&built=2099-01-01T00:00:00Z&checksum=${checksum}`, {
      headers: { 'content-type': 'application/octet-stream' },
      body: record,
    });
    expect(res.status, res.text).toBe(202);
    expect(await synced).toMatchObject({ status: 'done' });
    const feed = await nodeA.running.services.db('vuln_feeds').where({ name: 'shared-go' }).first();
    expect(feed).toMatchObject({ last_sync_status: 'ok', source: expect.stringMatching(/^stored-upload:[0-9a-f-]{36}\/feed\.json$/) });
    expect(await nodeA.running.services.db('vulnerabilities').where({ feed: 'shared-go', id: 'GO-2099-0777' }).first('id')).toBeTruthy();
    // The feed file stays stored as the feed's source, for later syncs on any node.
    expect(await storedUploadCounts(nodeA)).toEqual({ uploads: 1, chunks: 1 });
    expect(dataDirFiles(nodeA)).toEqual([]);
    expect(dataDirFiles(nodeB)).toEqual([]);
  });
});

