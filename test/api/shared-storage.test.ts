/**
 * Uploads live in the database, not in a node's data dir. On Postgres (the database nodes share) an archive and a
 * feed file uploaded through one node are analyzed and synced by another node with its own data dir. On either
 * database: a client that goes away mid-upload leaves nothing, the size limit holds while the body streams,
 * abandoned uploads are swept, and the encryption key is checked against the database at start-up.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/index.js';
import { createServices } from '../../src/service.js';
import { sweepAbandonedUploads, UPLOAD_CHUNK_BYTES } from '../../src/uploads/stored-uploads.js';
import { nowIso } from '../../src/util/time.js';
import { storedUploadCounts } from '../support/analysis.js';
import { dataDirFiles, uploadAndAnalyze } from '../support/stored-uploads.js';
import { createReusableStore } from '../support/auth-fixtures.js';
import { adminAuth, authHeader, raw } from '../support/http.js';
import { dockerArchiveTar } from '../support/image-builder.js';
import { alpineImage } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { assertResponseMatchesSpec } from '../support/spec-validator.js';

const onPostgres = !!process.env.VIGIL_TEST_DATABASE_URL;
const LIMIT = 12 * 1024 * 1024;

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

  it('without a configured key: generates a key file on SQLite, refuses a per-node key on Postgres', async () => {
    const store = await createReusableStore();
    try {
      if (onPostgres) {
        await expect(createServices(config(store.env), quiet)).rejects.toThrow(/^VIGIL_ENCRYPTION_KEY: is required with Postgres/);
        expect(existsSync(join(store.env.VIGIL_DATA_DIR!, 'encryption.key'))).toBe(false);
      } else {
        const services = await createServices(config(store.env), quiet);
        await services.db.destroy();
        expect(existsSync(join(store.env.VIGIL_DATA_DIR!, 'encryption.key'))).toBe(true);
      }
    } finally {
      await store.cleanup();
    }
  });
});
