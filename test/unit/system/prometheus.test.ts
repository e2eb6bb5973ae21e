/** PrometheusMetrics: what it counts from the worker, dispatcher and refresher events, and the shared gauges. */
import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/index.js';
import { JobQueue } from '../../../src/jobs/queue.js';
import { PrometheusMetrics } from '../../../src/system/prometheus.js';
import { createTestDb } from '../../support/db.js';
import { samples, valueOf } from '../../support/prometheus-text.js';
import { testJob } from '../../support/jobs.js';

let db: Db;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await createTestDb());
});
afterAll(async () => {
  await close?.();
});

describe('PrometheusMetrics', () => {
  it('counts jobs, analyses, notification attempts and refreshes from the events their runners emit', async () => {
    const metrics = new PrometheusMetrics(db);
    const worker = new EventEmitter();
    const dispatcher = new EventEmitter();
    const refresher = new EventEmitter();
    metrics.watch({ worker, dispatcher, refresher });
    worker.emit('finished', { id: 1, kind: 'analyze_image', status: 'done', durationMs: 1500, outcome: 'analyzed' });
    worker.emit('finished', { id: 2, kind: 'analyze_image', status: 'done', durationMs: 200, outcome: 'failed' });
    worker.emit('finished', { id: 3, kind: 'feed_sync', status: 'queued', durationMs: 10, error: 'network' });
    worker.emit('finished', { id: 3, kind: 'feed_sync', status: 'failed', durationMs: 10, error: 'network' });
    dispatcher.emit('attempt', { state: 'delivered', outcome: { ok: true } });
    dispatcher.emit('attempt', { state: 'pending', outcome: { ok: false } });
    dispatcher.emit('attempt', { state: 'failed', outcome: { ok: false } });
    refresher.emit('refreshed', {});
    refresher.emit('failed', new Error('database gone'));

    const list = samples(await metrics.metrics());
    expect(valueOf(list, 'vigil_jobs_finished_total', { kind: 'analyze_image', status: 'done' })).toBe(2);
    expect(valueOf(list, 'vigil_jobs_finished_total', { kind: 'feed_sync', status: 'queued' })).toBe(1);
    expect(valueOf(list, 'vigil_jobs_finished_total', { kind: 'feed_sync', status: 'failed' })).toBe(1);
    expect(valueOf(list, 'vigil_job_duration_seconds_sum', { kind: 'analyze_image' })).toBeCloseTo(1.7, 5);
    expect(valueOf(list, 'vigil_job_duration_seconds_bucket', { kind: 'analyze_image', le: '1' })).toBe(1);
    expect(valueOf(list, 'vigil_analyses_total', { outcome: 'analyzed' })).toBe(1);
    expect(valueOf(list, 'vigil_analyses_total', { outcome: 'failed' })).toBe(1);
    expect(valueOf(list, 'vigil_notification_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(valueOf(list, 'vigil_notification_deliveries_total', { outcome: 'retrying' })).toBe(1);
    expect(valueOf(list, 'vigil_notification_deliveries_total', { outcome: 'failed' })).toBe(1);
    expect(valueOf(list, 'vigil_report_refreshes_total', { outcome: 'ok' })).toBe(1);
    expect(valueOf(list, 'vigil_report_refreshes_total', { outcome: 'error' })).toBe(1);
    expect(valueOf(list, 'vigil_report_last_refresh_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 60);
  });

  it('reads queue depth and the oldest due job from the shared database', async () => {
    const queue = new JobQueue(db);
    await queue.enqueue(testJob('depth_sync'), {});
    await queue.enqueue(testJob('depth_sync'), {});
    // Not due yet: waiting, but not for a worker.
    await queue.enqueue(testJob('depth_analysis'), {}, { runAt: new Date(Date.now() + 3_600_000) });
    const metrics = new PrometheusMetrics(db);
    const list = samples(await metrics.metrics());
    expect(valueOf(list, 'vigil_jobs', { kind: 'depth_sync', status: 'queued' })).toBe(2);
    expect(valueOf(list, 'vigil_jobs', { kind: 'depth_analysis', status: 'queued' })).toBe(1);
    expect(valueOf(list, 'vigil_jobs_oldest_queued_age_seconds', { kind: 'depth_sync' })).toBeGreaterThanOrEqual(0);
    expect(list.some((s) => s.name === 'vigil_jobs_oldest_queued_age_seconds' && s.labels.kind === 'depth_analysis')).toBe(false);
    expect(valueOf(list, 'vigil_report_pending_changes')).toBeGreaterThanOrEqual(0);
  });

  it('keeps counters apart between two instances in one process', async () => {
    const a = new PrometheusMetrics(db);
    const b = new PrometheusMetrics(db);
    a.observeRequest('version_check', 'GET', 200, 0.01);
    expect(valueOf(samples(await a.metrics()), 'vigil_http_requests_total', { operation: 'version_check' })).toBe(1);
    expect(valueOf(samples(await b.metrics()), 'vigil_http_requests_total', { operation: 'version_check' })).toBe(0);
  });
});
