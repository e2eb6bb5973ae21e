import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { JobWorker, type HandedBack, type JobFinished } from '../../src/jobs/worker.js';
import { createTestDb } from '../support/db.js';
import { testJob } from '../support/jobs.js';
import { definePeriodicJob } from '../../src/jobs/periodic.js';

let db: Db;
let close: () => Promise<void>;
const log = pino({ level: 'silent' });
const fast = { concurrency: 1, leaseMs: 30_000, pollMs: 5, retryBaseMs: 1 };

beforeAll(async () => {
  ({ db, close } = await createTestDb());
});
afterAll(async () => {
  await close?.();
});

function collect(worker: JobWorker): JobFinished[] {
  const seen: JobFinished[] = [];
  worker.on('finished', (f: JobFinished) => seen.push(f));
  return seen;
}

describe('JobQueue + JobWorker', () => {
  it('runs a queued job with its payload and marks it done', async () => {
    const queue = new JobQueue(db);
    const worker = new JobWorker(queue, log, fast);
    const payloads: unknown[] = [];
    worker.register(testJob('echo'), async (payload) => {
      payloads.push(payload);
    });
    await worker.start();
    const id = await queue.enqueue(testJob('echo'), { hello: 'world' });
    const done = worker.waitFor(id);
    worker.wake();
    expect(await done).toMatchObject({ id, status: 'done' });
    expect(payloads).toEqual([{ hello: 'world' }]);
    expect((await queue.get(id))?.status).toBe('done');
    await worker.stop();
  });

  it('retries a failing job with backoff and fails it for good after max attempts', async () => {
    const queue = new JobQueue(db);
    const worker = new JobWorker(queue, log, fast);
    let calls = 0;
    worker.register(testJob('flaky'), async () => {
      calls++;
      throw new Error(`boom ${calls}`);
    });
    const seen = collect(worker);
    await worker.start();
    const id = await queue.enqueue(testJob('flaky', { maxAttempts: 3 }), {});
    const final = worker.waitFor(id);
    worker.wake();
    expect(await final).toMatchObject({ status: 'failed', error: 'boom 3' });
    expect(calls).toBe(3);
    expect(seen.filter((f) => f.id === id).map((f) => f.status)).toEqual(['queued', 'queued', 'failed']);
    const record = await queue.get(id);
    expect(record).toMatchObject({ status: 'failed', attempts: 3, last_error: 'boom 3', locked_by: null });
    await worker.stop();
  });

  it('succeeds on a retry after a transient failure', async () => {
    const queue = new JobQueue(db);
    const worker = new JobWorker(queue, log, fast);
    let calls = 0;
    worker.register(testJob('transient'), async () => {
      if (++calls === 1) throw new Error('try again');
    });
    await worker.start();
    const id = await queue.enqueue(testJob('transient'), {});
    const final = worker.waitFor(id);
    worker.wake();
    expect((await final).status).toBe('done');
    expect(calls).toBe(2);
    await worker.stop();
  });

  it('resumes a job left running by a stopped (or crashed) worker of this host', async () => {
    const queue = new JobQueue(db);
    const first = new JobWorker(queue, log, { ...fast, processToken: 'before-restart' });
    let release!: () => void;
    const started = new Promise<void>((resolve) => {
      first.register(testJob('long'), (_p, _job, ctx) => {
        resolve();
        return new Promise<void>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))));
      });
    });
    await first.start();
    const id = await queue.enqueue(testJob('long'), { n: 1 });
    first.wake();
    await started;
    await first.stop(); // like a crash mid-job: the job stays claimed
    expect((await queue.get(id))?.status).toBe('running');

    const second = new JobWorker(queue, log, { ...fast, processToken: 'after-restart' });
    const ran = new Promise<void>((resolve) => (release = resolve));
    second.register(testJob('long'), async () => release());
    const done = second.waitFor(id);
    await second.start();
    await ran;
    expect((await done).status).toBe('done');
    await second.stop();
  });

  it('at start, releases only its own host\'s jobs, reading the host id literally (no LIKE wildcards)', async () => {
    const queue = new JobQueue(db);
    const mine = await queue.enqueue(testJob('literal'), {});
    const other = await queue.enqueue(testJob('literal'), {});
    const lease = '2999-01-01T00:00:00.000Z';
    await db('jobs').where({ id: mine }).update({ status: 'running', locked_by: 'node_a%:earlier.1:w', locked_until: lease });
    // `_` and `%` as LIKE wildcards would make this another host's job look like one of node_a%'s.
    await db('jobs').where({ id: other }).update({ status: 'running', locked_by: 'nodeXabc:earlier.1:w', locked_until: lease });
    expect(await queue.releaseAbandoned('node_a%:', 'node_a%:now.2:')).toBe(1);
    expect((await queue.get(mine))?.status).toBe('queued');
    expect((await queue.get(other))?.status).toBe('running');
  });

  it('claims a job whose lease lapsed on another host', async () => {
    const queue = new JobQueue(db);
    const id = await queue.enqueue(testJob('orphan'), {});
    await db('jobs').where({ id }).update({ status: 'running', locked_by: 'other-host:1:abcd', locked_until: '2000-01-01T00:00:00.000Z' });
    const worker = new JobWorker(queue, log, fast);
    worker.register(testJob('orphan'), async () => {});
    const done = worker.waitFor(id);
    await worker.start();
    expect((await done).status).toBe('done');
    await worker.stop();
  });

  it('does not take a job another live worker holds', async () => {
    const queue = new JobQueue(db);
    const id = await queue.enqueue(testJob('held'), {});
    await db('jobs').where({ id }).update({ status: 'running', locked_by: 'other-host:1:abcd', locked_until: '2999-01-01T00:00:00.000Z' });
    expect(await queue.claim('me:1:x', 1000, ['held'])).toBeNull();
  });

  it('runs each job exactly once with two workers and bounded concurrency', async () => {
    const queue = new JobQueue(db);
    const runs = new Map<number, number>();
    let active = 0;
    let peak = 0;
    const handler = async (payload: { n: number }) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setImmediate(r));
      runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
      active--;
    };
    const workers = [new JobWorker(queue, log, { ...fast, concurrency: 2 }), new JobWorker(queue, log, { ...fast, concurrency: 2 })];
    for (const w of workers) w.register(testJob('count'), handler);
    const ids: number[] = [];
    for (let n = 0; n < 20; n++) ids.push(await queue.enqueue(testJob('count'), { n }));
    const finished = new Set<number>();
    const all = new Promise<void>((resolve) => {
      for (const w of workers)
        w.on('finished', (f: JobFinished) => {
          if (ids.includes(f.id) && f.status === 'done') finished.add(f.id);
          if (finished.size === ids.length) resolve();
        });
    });
    for (const w of workers) await w.start();
    await all;
    expect([...runs.values()].every((c) => c === 1)).toBe(true);
    expect(runs.size).toBe(20);
    expect(peak).toBeLessThanOrEqual(4);
    for (const w of workers) await w.stop();
  });

  it('does not run again a job whose attempts were all used up by interruptions, and reports it exhausted', async () => {
    const queue = new JobQueue(db);
    const id = await queue.enqueue(testJob('crashy', { maxAttempts: 2 }), { n: 7 });
    // Two claims whose workers vanished (the process died mid-job each time).
    await db('jobs').where({ id }).update({ status: 'running', attempts: 2, locked_by: 'other-host:1:dead', locked_until: '2000-01-01T00:00:00.000Z' });
    const worker = new JobWorker(queue, log, fast);
    let ran = false;
    const exhausted: unknown[] = [];
    worker.register(
      testJob('crashy'),
      async () => {
        ran = true;
      },
      async (payload) => {
        exhausted.push(payload);
      },
    );
    const done = worker.waitFor(id);
    await worker.start();
    expect(await done).toMatchObject({ status: 'failed', error: expect.stringMatching(/interrupted 2 times/) });
    expect(ran).toBe(false);
    expect(exhausted).toEqual([{ n: 7 }]);
    expect((await queue.get(id))?.status).toBe('failed');
    await worker.stop();
  });

  it('drains: a job that finishes within the grace time completes, one that does not goes back to the queue', async () => {
    const queue = new JobQueue(db);
    const worker = new JobWorker(queue, log, { ...fast, concurrency: 2 });
    let finishQuick!: () => void;
    const running: Promise<void>[] = [];
    const started = (kind: string) => new Promise<void>((resolve) => running.push(new Promise<void>((r) => worker.once(`started:${kind}`, r)).then(resolve)));
    worker.register(testJob('quick'), (_p, _job) => {
      worker.emit('started:quick');
      return new Promise<void>((resolve) => (finishQuick = resolve));
    });
    worker.register(testJob('stuck'), (_p, _job, ctx) => {
      worker.emit('started:stuck');
      return new Promise<void>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    });
    const quickStarted = started('quick');
    const stuckStarted = started('stuck');
    const quick = await queue.enqueue(testJob('quick'), {});
    const stuck = await queue.enqueue(testJob('stuck'), {});
    const finished = collect(worker);
    const handedBack: HandedBack[] = [];
    worker.on('handedBack', (h: HandedBack) => handedBack.push(h));
    await worker.start();
    await Promise.all([quickStarted, stuckStarted]);

    const quickDone = worker.waitFor(quick);
    // The grace time outlasts the quick job (finished below, once the drain is under way) and then runs out.
    const drained = worker.drain(300);
    finishQuick();
    expect(await quickDone).toMatchObject({ id: quick, status: 'done' });
    await drained;
    expect(handedBack).toEqual([{ id: stuck, kind: 'stuck' }]);
    expect(finished.map((f) => f.id)).toEqual([quick]);
    // Handed back: due now, unlocked, and the interrupted attempt does not count towards max_attempts.
    expect(await queue.get(stuck)).toMatchObject({ status: 'queued', locked_by: null, locked_until: null, attempts: 0 });
    expect(await queue.claim('next-node:1:x', 1000, ['stuck'])).toMatchObject({ id: stuck, attempts: 1 });
  });
});

describe('job definitions, de-duplication, lanes and periodic jobs', () => {
  const strict = testJob<{ digest: string }>('strict_payload', {
    schema: { type: 'object', properties: { digest: { type: 'string', pattern: '^sha256:' } }, required: ['digest'], additionalProperties: false },
  });

  it('refuses to queue a payload that does not fit the kind\'s schema', async () => {
    const queue = new JobQueue(db);
    await expect(queue.enqueue(strict, { digest: 'md5:1' })).rejects.toThrow(/job 'strict_payload': payload\/digest must match pattern/);
    await expect(queue.enqueue(strict, { digest: 'sha256:1', extra: 1 } as never)).rejects.toThrow(/must NOT have additional properties/);
    expect(Number((await db('jobs').where({ kind: 'strict_payload' }).count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('fails for good, without running it, a claimed job whose stored payload does not fit (written by another version)', async () => {
    const queue = new JobQueue(db);
    const id = await queue.enqueue(strict, { digest: 'sha256:ok' });
    await db('jobs').where({ id }).update({ payload: JSON.stringify({ imageDigest: 'sha256:ok' }) });
    const worker = new JobWorker(queue, log, fast);
    let ran = false;
    worker.register(strict, async () => {
      ran = true;
    });
    const done = worker.waitFor(id);
    await worker.start();
    expect(await done).toMatchObject({ status: 'failed', error: expect.stringMatching(/must have required property 'digest'/) });
    expect(ran).toBe(false);
    expect(await queue.get(id)).toMatchObject({ status: 'failed', attempts: 1 });
    await worker.stop();
  });

  it('collapses jobs with one de-duplication key while one waits, and queues a new one once it runs', async () => {
    const queue = new JobQueue(db);
    const sync = testJob<{ feed: string; trigger: string }>('dedup_sync', { dedupKey: (p) => `sync:${p.feed}` });
    const first = await queue.enqueue(sync, { feed: 'osv', trigger: 'api' });
    expect(await queue.enqueue(sync, { feed: 'osv', trigger: 'schedule' })).toBe(first);
    const other = await queue.enqueue(sync, { feed: 'nvd', trigger: 'api' });
    expect(other).not.toBe(first);
    // Concurrent requests (two nodes at once) still leave one waiting job.
    const together = await Promise.all([1, 2, 3].map(() => queue.enqueue(sync, { feed: 'kev', trigger: 'api' })));
    expect(new Set(together).size).toBe(1);
    expect(await queue.claim('me:1:x', 60_000, ['dedup_sync'])).toMatchObject({ id: first, payload: { feed: 'osv', trigger: 'api' } });
    const behind = await queue.enqueue(sync, { feed: 'osv', trigger: 'schedule' });
    expect(behind).not.toBe(first);
    // A retry of the running one, with an equal job already waiting, keeps its place without the key.
    const claimed = await queue.get(first);
    await queue.fail({ id: first, kind: 'dedup_sync', payload: {}, accountName: null, attempts: claimed!.attempts, maxAttempts: 3 }, 'me:1:x', 'boom', 0);
    expect(await queue.get(first)).toMatchObject({ status: 'queued', dedup_key: null });
    expect(await queue.get(behind)).toMatchObject({ status: 'queued', dedup_key: 'sync:osv' });
  });

  it("moves a waiting job to the earlier due time with 'earliest'", async () => {
    const queue = new JobQueue(db);
    const tick = testJob<{ at: string }>('earliest_tick', { dedupKey: () => 'tick' });
    const later = new Date(Date.now() + 3_600_000);
    const id = await queue.enqueue(tick, { at: 'later' }, { runAt: later, onDuplicate: 'earliest' });
    expect(await queue.enqueue(tick, { at: 'much later' }, { runAt: new Date(later.getTime() + 1000), onDuplicate: 'earliest' })).toBe(id);
    expect(await queue.get(id)).toMatchObject({ run_at: later.toISOString(), payload: JSON.stringify({ at: 'later' }) });
    const soon = new Date(Date.now() + 1000);
    expect(await queue.enqueue(tick, { at: 'soon' }, { runAt: soon, onDuplicate: 'earliest' })).toBe(id);
    expect(await queue.get(id)).toMatchObject({ run_at: soon.toISOString(), payload: JSON.stringify({ at: 'soon' }) });
  });

  it("gives a waiting job the new due time with 'replace', later or earlier, and drops it by key", async () => {
    const queue = new JobQueue(db);
    const tick = testJob<{ at: string }>('replace_tick', { dedupKey: () => 'replace-tick' });
    const soon = new Date(Date.now() + 1000);
    const id = await queue.enqueue(tick, { at: 'soon' }, { runAt: soon });
    const later = new Date(Date.now() + 3_600_000);
    expect(await queue.enqueue(tick, { at: 'later' }, { runAt: later, onDuplicate: 'replace' })).toBe(id);
    expect(await queue.get(id)).toMatchObject({ run_at: later.toISOString(), payload: JSON.stringify({ at: 'later' }) });
    expect(await queue.enqueue(tick, { at: 'soon again' }, { runAt: soon, onDuplicate: 'replace' })).toBe(id);
    expect(await queue.get(id)).toMatchObject({ run_at: soon.toISOString(), payload: JSON.stringify({ at: 'soon again' }) });
    await queue.dropWaiting('replace-tick');
    expect(await queue.get(id)).toBeUndefined();
  });

  it('runs upkeep jobs while every work slot is taken', async () => {
    const queue = new JobQueue(db);
    const worker = new JobWorker(queue, log, { ...fast, concurrency: 1, upkeepConcurrency: 1 });
    let releaseWork!: () => void;
    worker.register(testJob('lane_work'), () => new Promise<void>((resolve) => (releaseWork = resolve)));
    worker.register(testJob('lane_upkeep', { lane: 'upkeep' }), async () => {});
    const workClaimed = new Promise<void>((resolve) => worker.on('claimed', (kind: string) => kind === 'lane_work' && resolve()));
    const work = await queue.enqueue(testJob('lane_work'), {});
    await worker.start();
    await workClaimed;
    expect(worker.busy).toBe(true);
    const upkeep = await queue.enqueue(testJob('lane_upkeep'), {});
    const upkeepDone = worker.waitFor(upkeep);
    worker.wake();
    expect((await upkeepDone).status).toBe('done');
    expect((await queue.get(work))?.status).toBe('running');
    releaseWork();
    expect((await worker.waitFor(work)).status).toBe('done');
    await worker.stop();
  });

  it('runs each slot of a periodic kind once across two workers, and keeps the next slot queued', async () => {
    const queue = new JobQueue(db);
    const kind = definePeriodicJob({ kind: 'every_100ms', role: 'scheduler' });
    const slots: string[] = [];
    const workers = ['node-a', 'node-b'].map((nodeId) => new JobWorker(queue, log, { ...fast, nodeId }));
    const enough = new Promise<void>((resolve) => {
      for (const worker of workers)
        worker.registerPeriodic(kind, { everyMs: 100 }, async ({ slot }) => {
          slots.push(slot);
          if (slots.length === 6) resolve();
        });
    });
    const ranOn = new Set<string>();
    for (const worker of workers) worker.on('claimed', (k: string) => k === kind.kind && ranOn.add(worker.workerId));
    await Promise.all(workers.map((w) => w.start()));
    await enough;
    for (const worker of workers) await worker.stop();
    expect(new Set(slots).size).toBe(slots.length);
    for (const slot of slots) expect(Date.parse(slot) % 100).toBe(0);
    const waiting = await db('jobs').where({ kind: kind.kind, status: 'queued' });
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ dedup_key: 'periodic:every_100ms' });
    expect(Date.parse(JSON.parse(waiting[0].payload).slot)).toBeGreaterThan(Date.parse(slots.at(-1)!));
    // The run records say which node ran each slot.
    const records = await db('jobs').where({ kind: kind.kind, status: 'done' }).select('ran_on', 'started_at', 'finished_at');
    expect(records.length).toBeGreaterThanOrEqual(6);
    for (const r of records) expect(workers.map((w) => w.workerId)).toContain(r.ran_on);
    expect(ranOn.size).toBeGreaterThanOrEqual(1);
  });

  it('prunes old run records: periodic runs after their own retention, other jobs after theirs', async () => {
    const queue = new JobQueue(db);
    const old = '2001-01-01T00:00:00.000Z';
    const periodicRun = await queue.enqueue(definePeriodicJob({ kind: 'prune_periodic', role: 'scheduler' }), { slot: old });
    const plain = await queue.enqueue(testJob('prune_plain'), {});
    await db('jobs').whereIn('id', [periodicRun, plain]).update({ status: 'done', finished_at: old });
    expect(await queue.pruneFinished('2002-01-01T00:00:00.000Z', 'periodic')).toBeGreaterThanOrEqual(1);
    expect(await queue.get(periodicRun)).toBeUndefined();
    expect(await queue.get(plain)).toBeDefined();
  });
});
