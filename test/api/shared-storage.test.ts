/**
 * Uploads live in the database, not in a node's data dir. On Postgres (the database nodes share) an archive and a
 * feed file uploaded through one node are analyzed and synced by another node with its own data dir. On either
 * database: a client that goes away mid-upload leaves nothing, the size limit holds while the body streams,
 * abandoned uploads are swept, and the encryption key is checked against the database at start-up.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/index.js';
import type { JobFinished } from '../../src/jobs/worker.js';
import { createServices } from '../../src/service.js';
import { sweepAbandonedUploads, UPLOAD_CHUNK_BYTES } from '../../src/uploads/stored-uploads.js';
import { nowIso } from '../../src/util/time.js';
import { storedUploadCounts, waitForAnalysis } from '../support/analysis.js';
import { createReusableStore } from '../support/auth-fixtures.js';
import { adminAuth, authHeader, raw } from '../support/http.js';
import { dockerArchiveTar } from '../support/image-builder.js';
import { alpineImage } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { assertResponseMatchesSpec } from '../support/spec-validator.js';
import { osvRecord } from '../vulns/fixture-feed.js';

const onPostgres = !!process.env.VIGIL_TEST_DATABASE_URL;
const LIMIT = 12 * 1024 * 1024;

/**
 * Uploads an archive of more than two stored chunks (so reading it back crosses chunk boundaries) through
 * `receiver`, waits for `analyzer` to analyze it, and checks the large file came through whole.
 */
async function uploadAndAnalyze(receiver: TestServer, analyzer: TestServer, marker: string): Promise<void> {
  const filler = Buffer.alloc(2 * UPLOAD_CHUNK_BYTES + 12345);
  for (let i = 0; i < filler.length; i += 4096) filler.writeUInt32BE(i, i);
  const image = await alpineImage(marker, [{ path: 'opt/filler.bin', content: filler }]);
  const res = await raw(receiver.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: [`example.com/${marker}/app:1`] }),
  });
  expect(res.status, res.text).toBe(200);
  expect(await waitForAnalysis(analyzer, 'admin', res.json.image_digest)).toBe('analyzed');
  const files = await raw(analyzer.url, 'GET', `/v2/images/${res.json.image_digest}/content/files`);
  expect(files.json.content.find((f: { filename: string }) => f.filename === '/opt/filler.bin')).toMatchObject({ size: filler.length });
}

/** Files a node wrote into its data dir, apart from the SQLite database and a generated key. */
function dataDirFiles(server: TestServer): string[] {
  const dir = server.running.services.config.dataDir;
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => !/^vigil\.sqlite(-wal|-shm)?$|^encryption\.key$/.test(f));
}

/** Resolves once the server's database has answered a statement matching `pattern` (knex query events). */
function statementDone(db: Db, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const listener = (_response: unknown, query: { sql: string }) => {
      if (pattern.test(query.sql)) {
        db.off('query-response', listener);
        resolve();
      }
    };
    db.on('query-response', listener);
  });
}

describe.skipIf(!onPostgres)('two nodes on one Postgres database, each with its own data dir', () => {
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

describe('uploads stored in the database (one node)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ VIGIL_MAX_UPLOAD_BYTES: String(LIMIT) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('analyzes an archive of several chunks and keeps nothing of it, in the database or the data dir', async () => {
    await uploadAndAnalyze(server, server, 'one-node');
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
    expect(dataDirFiles(server)).toEqual([]);
  });

  it('keeps nothing when the client goes away mid-upload', async () => {
    const { db } = server.running.services;
    const firstChunk = statementDone(db, /insert into [`"]stored_upload_chunks[`"]/);
    const removed = statementDone(db, /delete from [`"]stored_uploads[`"]/);
    const req = http.request(`${server.url}/v2/images/archives`, {
      method: 'POST',
      headers: { ...authHeader(adminAuth), 'content-type': 'application/x-tar', 'content-length': String(LIMIT - 1) },
    });
    req.on('error', () => {}); // the abort below
    req.write(Buffer.alloc(UPLOAD_CHUNK_BYTES + 1024, 1));
    await firstChunk;
    expect((await storedUploadCounts(server)).chunks).toBe(1);
    req.destroy();
    await removed;
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });

  it('refuses an over-limit body while it streams, without reading the rest', async () => {
    const total = 64 * 1024 * 1024;
    let sent = 0;
    const answer = await new Promise<{ status: number; type: string | null; text: string }>((resolve, reject) => {
      const req = http.request(`${server.url}/v2/images/archives`, {
        method: 'POST',
        headers: { ...authHeader(adminAuth), 'content-type': 'application/x-tar', 'transfer-encoding': 'chunked' },
      });
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'] ?? null, text }));
      });
      req.on('error', (err) => (answered ? undefined : reject(err)));
      const piece = Buffer.alloc(256 * 1024, 2);
      const pump = () => {
        while (!answered && sent < total) {
          sent += piece.length;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    assertResponseMatchesSpec('POST', `${server.url}/v2/images/archives`, answer.status, answer.type, answer.text);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ error_type: 'payload_too_large', detail: { limit: LIMIT } });
    expect(sent).toBeLessThan(total);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });

  it('sweeps abandoned uploads, not one still receiving', async () => {
    const { db } = server.running.services;
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    const row = (id: string, state: string, updated: string, extra: Record<string, string> = {}) => ({
      id,
      purpose: 'image-archive',
      state,
      size: 3,
      created_at: updated,
      updated_at: updated,
      ...extra,
    });
    await db('stored_uploads').insert([
      row('00000000-0000-4000-8000-000000000001', 'receiving', old),
      row('00000000-0000-4000-8000-000000000002', 'held', old, { account_name: 'admin', image_digest: 'sha256:gone' }),
      row('00000000-0000-4000-8000-000000000003', 'receiving', nowIso()),
    ]);
    await db('stored_upload_chunks').insert({ upload_id: '00000000-0000-4000-8000-000000000001', seq: 0, bytes: Buffer.from('abc') });
    expect(await sweepAbandonedUploads(db)).toBe(2);
    expect((await db('stored_uploads').select('id')).map((r: { id: string }) => r.id)).toEqual(['00000000-0000-4000-8000-000000000003']);
    expect((await storedUploadCounts(server)).chunks).toBe(0);
    await db('stored_uploads').delete();
  });

  it('deletes a waiting archive with its image (last: it stops the worker)', async () => {
    await server.running.services.worker.stop();
    const res = await raw(server.url, 'POST', '/v2/images/archives', {
      headers: { 'content-type': 'application/x-tar' },
      body: await dockerArchiveTar(await alpineImage('deleted-before-analysis'), { repoTags: ['example.com/deleted/app:1'] }),
    });
    expect(res.status, res.text).toBe(200);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 1, chunks: 1 });
    // However old, an archive its image still waits for is not abandoned.
    expect(await sweepAbandonedUploads(server.running.services.db, Date.now() + 2 * 60 * 60 * 1000)).toBe(0);
    expect((await raw(server.url, 'DELETE', `/v2/images/${res.json.image_digest}`)).status).toBe(200);
    expect(await storedUploadCounts(server)).toEqual({ uploads: 0, chunks: 0 });
  });
});

describe('the encryption key at start-up', () => {
  const quiet = pino({ level: 'silent' });
  const config = (env: Record<string, string>) => loadConfig({ VIGIL_ADMIN_PASSWORD: 'key-test-password', VIGIL_ARGON2_MEMORY_KIB: '1024', VIGIL_ARGON2_TIME_COST: '1', ...env });

  it('refuses a key other than the one the database was first used with', async () => {
    const store = await createReusableStore();
    try {
      const first = await createServices(config({ ...store.env, VIGIL_ENCRYPTION_KEY: 'the-first-key-of-this-db' }), quiet);
      await first.db.destroy();
      await expect(createServices(config({ ...store.env, VIGIL_ENCRYPTION_KEY: 'another-key-entirely' }), quiet)).rejects.toThrow(
        /^VIGIL_ENCRYPTION_KEY: this node's encryption key \(VIGIL_ENCRYPTION_KEY\) is not the key the secrets in this database were sealed with/,
      );
      const again = await createServices(config({ ...store.env, VIGIL_ENCRYPTION_KEY: 'the-first-key-of-this-db' }), quiet);
      await again.db.destroy();
    } finally {
      await store.cleanup();
    }
  });

  it.skipIf(onPostgres)('generates a key file on SQLite when none is configured', async () => {
    const store = await createReusableStore();
    try {
      const services = await createServices(config(store.env), quiet);
      await services.db.destroy();
      expect(existsSync(join(store.env.VIGIL_DATA_DIR!, 'encryption.key'))).toBe(true);
    } finally {
      await store.cleanup();
    }
  });

  it.skipIf(!onPostgres)('refuses to generate a per-node key on Postgres', async () => {
    const store = await createReusableStore();
    try {
      await expect(createServices(config(store.env), quiet)).rejects.toThrow(/^VIGIL_ENCRYPTION_KEY: is required with Postgres/);
      expect(existsSync(join(store.env.VIGIL_DATA_DIR!, 'encryption.key'))).toBe(false);
    } finally {
      await store.cleanup();
    }
  });
});
