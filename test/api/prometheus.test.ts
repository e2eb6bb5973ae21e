/**
 * GET /metrics: Prometheus text that promtool accepts, whose counters add up to what the test did, and the
 * optional scrape protection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import { raw } from '../support/http.js';
import { minimalOsvRecord } from '../support/osv-zip.js';
import { promtoolProblems, samples, valueOf } from '../support/prometheus-text.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { installHint, missingTools } from '../support/tools.js';
import { writeRecords } from '../vulns/fixture-feed.js';

describe('GET /metrics', () => {
  let server: TestServer;
  let work: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'vigil-prometheus-'));
    writeRecords(join(work, 'osv'), { 'PYSEC-2099-1': minimalOsvRecord('PYSEC-2099-1', 'requests'), 'PYSEC-2099-2': minimalOsvRecord('PYSEC-2099-2', 'urllib3') });
    server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  });
  afterAll(async () => {
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('counts what happened: requests by operation and status, analyses, jobs, feed records and images', async () => {
    expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
    await analyzeArchiveImage(server, [[{ path: 'etc/os-release', content: 'ID=debian\nVERSION_ID=12\n' }]], 'docker.io/example/metrics:1');
    for (let i = 0; i < 3; i++) expect((await raw(server.url, 'GET', '/v2/version', { auth: null })).status).toBe(200);
    expect((await raw(server.url, 'GET', '/v2/no-such-route')).status).toBe(404);
    expect((await raw(server.url, 'GET', '/v2/images/not-a-digest')).status).toBe(400);

    const res = await raw(server.url, 'GET', '/metrics', { auth: null });
    expect(res.status).toBe(200);
    const list = samples(res.text);
    const requests = (labels: Record<string, string>) => valueOf(list, 'vigil_http_requests_total', labels);
    expect(requests({ operation: 'version_check', method: 'GET', status: '200' })).toBe(3);
    expect(valueOf(list, 'vigil_http_request_duration_seconds_count', { operation: 'version_check', method: 'GET' })).toBe(3);
    expect(requests({ operation: 'none', method: 'GET', status: '404' })).toBe(1);
    expect(requests({ operation: 'get_image', method: 'GET', status: '400' })).toBe(1);
    expect(requests({ operation: 'post_system_feeds', method: 'POST', status: '200' })).toBe(1);
    expect(valueOf(list, 'vigil_analyses_total', { outcome: 'analyzed' })).toBe(1);
    expect(valueOf(list, 'vigil_analyses_total', { outcome: 'failed' })).toBe(0);
    expect(valueOf(list, 'vigil_jobs_finished_total', { kind: 'analyze_image', status: 'done' })).toBe(1);
    expect(valueOf(list, 'vigil_job_duration_seconds_count', { kind: 'analyze_image' })).toBe(1);
    expect(valueOf(list, 'vigil_images', { analysis_status: 'analyzed' })).toBe(1);
    expect(valueOf(list, 'vigil_feed_records', { feed: 'osv' })).toBe(2);
    expect(valueOf(list, 'vigil_feed_last_sync_age_seconds', { feed: 'osv' })).toBeGreaterThanOrEqual(0);
    expect(valueOf(list, 'vigil_db_pool_connections', { state: 'used' })).toBeGreaterThanOrEqual(0);
    expect(list.some((s) => s.name === 'vigil_nodejs_eventloop_lag_p99_seconds')).toBe(true);
    // No label names an account, a user or an image.
    expect(res.text).not.toMatch(/admin|sha256:|example\/metrics/);

    // The scrape itself is counted by the next one.
    const again = samples((await raw(server.url, 'GET', '/metrics', { auth: null })).text);
    expect(valueOf(again, 'vigil_http_requests_total', { operation: 'metrics', method: 'GET', status: '200' })).toBe(1);
  });

  it.skipIf(missingTools('promtool'))(`is valid Prometheus text by promtool's check${missingTools('promtool') ? ` (${installHint(['promtool'])})` : ''}`, async () => {
    const res = await raw(server.url, 'GET', '/metrics', { auth: null });
    expect(promtoolProblems(res.text)).toEqual([]);
  });
});

describe('GET /metrics with scrape protection', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ VIGIL_PROMETHEUS_TOKEN: 'scrape-token-123', VIGIL_PROMETHEUS_BASIC_AUTH: 'prometheus:pass:with:colons' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers only the bearer token or the basic credentials, with 401 in the error shape otherwise', async () => {
    const refused = await raw(server.url, 'GET', '/metrics', { auth: null });
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ code: 401, error_type: 'unauthorized' });
    expect(refused.json.message).toMatch(/VIGIL_PROMETHEUS_TOKEN.*VIGIL_PROMETHEUS_BASIC_AUTH/);
    expect((await raw(server.url, 'GET', '/metrics', { auth: { bearer: 'scrape-token-12' } })).status).toBe(401);
    expect((await raw(server.url, 'GET', '/metrics', { auth: { basic: ['prometheus', 'pass:with'] } })).status).toBe(401);
    // The API's own credentials do not open it.
    expect((await raw(server.url, 'GET', '/metrics')).status).toBe(401);
    expect((await raw(server.url, 'GET', '/metrics', { auth: { bearer: 'scrape-token-123' } })).status).toBe(200);
    const basic = await raw(server.url, 'GET', '/metrics', { auth: { basic: ['prometheus', 'pass:with:colons'] } });
    expect(basic.status).toBe(200);
    expect(valueOf(samples(basic.text), 'vigil_http_requests_total', { operation: 'metrics', status: '401' })).toBe(4);
  });
});
