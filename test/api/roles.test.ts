/**
 * Process roles (VIGIL_ROLES): a node runs and registers only what its roles hold. An api-only node queues the
 * analyses it is asked for and never claims them; a node without api answers its probes and /metrics only.
 * Two nodes sharing the work are in roles-nodes.pg.test.ts (Postgres only).
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandedBack, JobFinished } from '../../src/jobs/worker.js';
import { samples } from '../support/prometheus-text.js';
import { raw } from '../support/http.js';
import { dockerArchiveTar } from '../support/image-builder.js';
import { alpineImage } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { testJob } from '../support/jobs.js';

const rolesOf = (server: TestServer) => server.running.services.config.roles;

describe('a node with only the api role', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer({ VIGIL_ROLES: 'api' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('queues an analysis it is asked for and claims no job kind, so the job waits for an analyzer', async () => {
    expect(api.running.services.worker.kinds).toEqual([]);
    const image = await alpineImage('api-only');
    const res = await raw(api.url, 'POST', '/v2/images/archives', {
      headers: { 'content-type': 'application/x-tar' },
      body: await dockerArchiveTar(image, { repoTags: ['example.com/api-only/app:1'] }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.analysis_status).toBe('not_analyzed');
    // The upload woke the worker; with no kind to claim it took nothing.
    api.running.services.worker.wake();
    const job = await api.running.services.db('jobs').where({ kind: 'analyze_image' }).first();
    expect(job).toMatchObject({ status: 'queued', locked_by: null, attempts: 0 });
  });

  it('registers only the services of its role, with its Vigil roles in the detail', async () => {
    const { hostId } = api.running.services;
    const res = await raw(api.url, 'GET', '/v2/system/services');
    expect(res.status).toBe(200);
    const mine = res.json.filter((s: { host_id: string }) => s.host_id === hostId);
    expect(mine.map((s: { service_name: string }) => s.service_name).sort()).toEqual(['apiext', 'catalog', 'reports']);
    for (const s of mine) expect(s.service_detail.detail.vigil_roles).toEqual(['api']);
  });
});

describe('a node without the api role', () => {
  let worker: TestServer;
  beforeAll(async () => {
    worker = await startTestServer({ VIGIL_ROLES: 'analyzer,feeds' });
  });
  afterAll(async () => {
    await worker?.close();
  });

  it('answers its probes and /metrics, and 404 in the error shape for everything else', async () => {
    for (const path of ['/v2/health', '/v2/health/live', '/v2/health/ready']) {
      const res = await raw(worker.url, 'GET', path, { auth: null });
      expect(res.status, path).toBe(200);
      expect(res.json).toEqual({ status: 'ok' });
    }
    const metrics = await raw(worker.url, 'GET', '/metrics', { auth: null });
    expect(metrics.status).toBe(200);
    expect(samples(metrics.text).length).toBeGreaterThan(0);
    for (const [method, path] of [
      ['GET', '/v2/version'],
      ['GET', '/v2/images'],
      ['POST', '/v2/health/ready'],
      ['GET', '/v2/reports/graphql'],
      ['GET', '/v2/docs'],
      ['GET', '/v1/accounts'],
    ] as const) {
      const res = await raw(worker.url, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json).toMatchObject({ code: 404, error_type: 'not_found', message: expect.stringContaining('VIGIL_ROLES has no api') });
    }
  });

  it('claims the job kinds of its roles only, and registers their services', async () => {
    const { worker: jobs, registry } = worker.running.services;
    expect(rolesOf(worker)).toEqual(['analyzer', 'feeds']);
    expect(jobs.kinds.sort()).toEqual(['analyze_image', 'analyze_running_images', 'corrections_rematch', 'feed_sync', 'policy_reevaluate', 'policy_reevaluate_images', 'vuln_rematch']);
    expect([...registry.names].sort()).toEqual(['analyzer', 'policy_engine', 'simplequeue']);
    const rows = await worker.running.services.db('system_services').where({ host_id: worker.running.services.hostId });
    expect(rows.map((r) => r.node_roles)).toEqual(rows.map(() => 'analyzer,feeds'));
  });
});

describe('registrations follow the roles', () => {
  it('registers notifications only with that role and the dispatcher on, reports_worker only with reports', async () => {
    const server = await startTestServer({ VIGIL_ROLES: 'reports,notifications,scheduler', VIGIL_WATCH_INTERVAL_SECONDS: '300' });
    try {
      expect([...server.running.services.registry.names].sort()).toEqual(['catalog', 'notifications', 'reports_worker', 'simplequeue']);
      expect(server.running.services.worker.kinds.sort()).toEqual([
        'analysis_archive_rules',
        'artifact_lifecycle_run',
        'inventory_expiry',
        'job_records_prune',
        'metrics_collect',
        'notifications_deliver',
        'reports_refresh',
        'scheduled_queries_due',
        'scheduled_query_run',
        'watch_sweep',
      ]);
    } finally {
      await server.close();
    }
    const quiet = await startTestServer({ VIGIL_ROLES: 'notifications', VIGIL_NOTIFICATIONS_DISPATCHER: 'false' });
    try {
      expect(quiet.running.services.registry.names).toEqual([]);
      expect((await raw(quiet.url, 'GET', '/v2/health/ready', { auth: null })).status).toBe(200);
    } finally {
      await quiet.close();
    }
  });
});

describe('stopping a worker node (SIGTERM runs the same close())', () => {
  it('lets a running job finish within the grace time and hands back one that does not', async () => {
    const server = await startTestServer({ VIGIL_ROLES: 'analyzer', VIGIL_SHUTDOWN_TIMEOUT_MS: '2000', VIGIL_ANALYSIS_CONCURRENCY: '2' });
    const { worker, jobs } = server.running.services;
    let finishQuick!: () => void;
    // Test-only job kinds on this node's worker: one finishes when told, one only ends when aborted.
    worker.register(testJob('drain_quick'), () => new Promise<void>((resolve) => (finishQuick = resolve)));
    worker.register(testJob('drain_stuck'), (_p, _job, ctx) => new Promise<void>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))));
    const claimed = new Set<string>();
    const bothRunning = new Promise<void>((resolve) =>
      worker.on('claimed', (kind: string) => {
        claimed.add(kind);
        if (claimed.size === 2) resolve();
      }),
    );
    const quick = await jobs.enqueue(testJob('drain_quick'), {});
    const stuck = await jobs.enqueue(testJob('drain_stuck'), {});
    const finished: JobFinished[] = [];
    worker.on('finished', (f: JobFinished) => finished.push(f));
    const handedBack = once(worker, 'handedBack') as Promise<[HandedBack]>;
    worker.wake();
    await bothRunning;
    const closed = server.close();
    finishQuick();
    expect((await handedBack)[0]).toEqual({ id: stuck, kind: 'drain_stuck' });
    await closed;
    expect(finished).toEqual([expect.objectContaining({ id: quick, status: 'done' })]);
  });
});
