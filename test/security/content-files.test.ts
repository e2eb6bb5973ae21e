/**
 * Issue 14, item 10: GET /v2/images/{digest}/content/files of an analyzed image with 100,000 files. Unpaged, it
 * keeps upstream's shape and lists every file, streamed rather than built whole; `page`/`limit` answer one page
 * with the next page's number.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { expectError } from '../support/fixtures.js';
import { adminAuth, authHeader, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';

const FILE_COUNT = 100_000;
let server: TestServer;
let digest: string;
/** The unpaged answer's list: every path of the image (the files, their directories, /etc/os-release). */
let all: { filename: string }[];

beforeAll(async () => {
  server = await startTestServer();
  const specs = Array.from({ length: FILE_COUNT }, (_, i) => ({ path: `srv/data/d${Math.floor(i / 500)}/f${String(i).padStart(6, '0')}.bin`, content: '' }));
  const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: 'ID=debian\nVERSION_ID="12"\n' }, ...specs]] });
  const tar = await dockerArchiveTar(image, { repoTags: ['example.com/team/many-files:1'] });
  const added = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: tar });
  expect(added.status, added.text).toBe(200);
  digest = added.json.image_digest;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
}, 120_000);
afterAll(async () => {
  await server?.close();
});

const get = (query = '') => raw(server.url, 'GET', `/v2/images/${digest}/content/files${query}`);

describe('content/files of an image with 100,000 files', () => {
  it('answers every file in upstream shape, streamed, when the caller does not page', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(Object.keys(res.json).sort()).toEqual(['content', 'content_type', 'image_digest']);
    expect(res.json).toMatchObject({ image_digest: digest, content_type: 'files' });
    all = res.json.content;
    expect(all.filter((f) => f.filename.endsWith('.bin'))).toHaveLength(FILE_COUNT);
    expect(all.map((f) => f.filename)).toEqual(all.map((f) => f.filename).sort());
    expect(all).toContainEqual({ filename: '/srv/data/d0/f000000.bin', type: 'file', mode: '00644', uid: 0, gid: 0, size: 0, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('answers one page with the next page number, across stored chunks', async () => {
    const limit = 1500; // not a multiple of the stored chunk size (1000): pages span chunks
    const second = await get(`?page=2&limit=${limit}`);
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ image_digest: digest, content_type: 'files', page: '2', next_page: '3', returned_count: limit, total_count: all.length });
    expect(second.json.content).toEqual(all.slice(limit, 2 * limit));

    const last = await get(`?page=${Math.ceil(all.length / limit)}&limit=${limit}`);
    expect(last.json).toMatchObject({ next_page: '', returned_count: all.length % limit });
    expect(last.json.content).toEqual(all.slice(-(all.length % limit)));

    const beyond = await get('?page=1000&limit=1000');
    expect(beyond.json).toMatchObject({ page: '1000', next_page: '', returned_count: 0, total_count: all.length, content: [] });
  });

  it('pages by 1000 files when only page is given, from page 1 when only limit is', async () => {
    expect((await get('?page=3')).json).toMatchObject({ page: '3', next_page: '4', returned_count: 1000 });
    const first = await get('?limit=10');
    expect(first.json).toMatchObject({ page: '1', next_page: '2', returned_count: 10 });
    expect(first.json.content).toEqual(all.slice(0, 10));
  });

  it('refuses page and limit values outside their range', async () => {
    expectError(await get('?page=0'), 400, 'validation_error');
    expectError(await get('?limit=0'), 400, 'validation_error');
    expectError(await get('?limit=10001'), 400, 'validation_error');
  });

  it('counts the files in the content summary', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/content-summary`);
    expect(res.json.items).toContainEqual({ content_type: 'files', display_name: 'Files', count: all.length });
  });

  it('stops reading when the client leaves mid-answer, and keeps serving', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v2/images/${digest}/content/files`, { headers: authHeader(adminAuth), signal: controller.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    await reader.closed.catch(() => undefined);
    expect((await get('?limit=1')).json.content).toEqual(all.slice(0, 1));
  });
});

describe('migration 015 (file lists in chunks)', () => {
  it('converts the file lists of images analyzed before it, and back', async () => {
    const { db } = server.running.services;
    const scope = { account_name: 'admin', image_digest: digest };
    await db.migrate.down({ name: '015_image_file_chunks' });
    const doc = await db('image_documents').where({ ...scope, kind: 'files' }).first('content');
    expect(JSON.parse(gunzipSync(doc.content).toString('utf8'))).toHaveLength(all.length);

    await db.migrate.up({ name: '015_image_file_chunks' });
    expect(await db('image_documents').where({ ...scope, kind: 'files' }).first()).toBeUndefined();
    expect((await get()).json.content).toEqual(all);
  });
});
