/**
 * Process roles across nodes on one Postgres database: an api-only node queues an analysis it never claims, and
 * an analyzer node (no api) analyzes it; a draining analyzer hands its job back to the queue. Postgres only
 * (*.pg.test.ts, see vitest.config.ts): SQLite lives in one node's data dir.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobFinished } from '../../src/jobs/worker.js';
import { waitForAnalysis } from '../support/analysis.js';
import { raw } from '../support/http.js';
import { dockerArchiveTar } from '../support/image-builder.js';
import { alpineImage } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('an api node and an analyzer node on one Postgres database', () => {
  let api: TestServer;
  let analyzer: TestServer;
  const finishedOnApi: JobFinished[] = [];

  beforeAll(async () => {
    api = await startTestServer({ VIGIL_ROLES: 'api', VIGIL_HOST_ID: 'roles-api' });
    api.running.services.worker.on('finished', (f: JobFinished) => finishedOnApi.push(f));
    analyzer = await startTestServer({
      VIGIL_ROLES: 'analyzer',
      VIGIL_HOST_ID: 'roles-analyzer',
      VIGIL_DATABASE_URL: api.running.services.config.databaseUrl!,
      VIGIL_JOB_POLL_MS: '20',
    });
  }, 60_000);
  afterAll(async () => {
    await analyzer?.close();
    await api?.close();
  });

  it('analyzes on the analyzer node an image added through the api node, which never claims it', async () => {
    const image = await alpineImage('roles-split');
    const res = await raw(api.url, 'POST', '/v2/images/archives', {
      headers: { 'content-type': 'application/x-tar' },
      body: await dockerArchiveTar(image, { repoTags: ['example.com/roles-split/app:1'] }),
    });
    expect(res.status, res.text).toBe(200);
    expect(await waitForAnalysis(analyzer, 'admin', res.json.image_digest)).toBe('analyzed');
    const job = await api.running.services.db('jobs').where({ kind: 'analyze_image' }).orderBy('id', 'desc').first();
    expect(job).toMatchObject({ status: 'done', attempts: 1 });
    expect(finishedOnApi).toEqual([]);
    // The api node serves the result; the analyzer node serves no API.
    expect((await raw(api.url, 'GET', `/v2/images/${res.json.image_digest}`)).json.analysis_status).toBe('analyzed');
    expect((await raw(analyzer.url, 'GET', `/v2/images/${res.json.image_digest}`)).status).toBe(404);
  });

  it('lists both nodes with their roles in GET /v2/system/services', async () => {
    const res = await raw(api.url, 'GET', '/v2/system/services');
    const byHost = (host: string) =>
      res.json
        .filter((s: { host_id: string }) => s.host_id === host)
        .map((s: { service_name: string; status: boolean; service_detail: { detail: { vigil_roles: string[] } } }) => [s.service_name, s.status, s.service_detail.detail.vigil_roles]);
    expect(byHost('roles-api')).toEqual([
      ['apiext', true, ['api']],
      ['catalog', true, ['api']],
      ['reports', true, ['api']],
    ]);
    expect(byHost('roles-analyzer')).toEqual([
      ['analyzer', true, ['analyzer']],
      ['simplequeue', true, ['analyzer']],
    ]);
  });
});
