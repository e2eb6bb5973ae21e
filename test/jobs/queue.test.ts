import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { JobWorker, type HandedBack, type JobFinished } from '../../src/jobs/worker.js';
import { createTestDb } from '../support/db.js';

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
    worker.register('echo', async (payload) => {
      payloads.push(payload);
    });
    await worker.start();
    const id = await queue.enqueue('echo', { hello: 'world' });
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
    worker.register('flaky', async () => {
      calls++;
      throw new Error(`boom ${calls}`);
    });
    const seen = collect(worker);
    await worker.start();
    const id = await queue.enqueue('flaky', {}, { maxAttempts: 3 });
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
    worker.register('transient', async () => {
      if (++calls === 1) throw new Error('try again');
    });
    await worker.start();
    const id = await queue.enqueue('transient', {});
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
      first.register('long', (_p, _job, ctx) => {
        resolve();
        return new Promise<void>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))));
      });
    });
    await first.start();
    const id = await queue.enqueue('long', { n: 1 });
    first.wake();
    await started;
    await first.stop(); // like a crash mid-job: the job stays claimed
    expect((await queue.get(id))?.status).toBe('running');

    const second = new JobWorker(queue, log, { ...fast, processToken: 'after-restart' });
    const ran = new Promise<void>((resolve) => (release = resolve));
    second.register('long', async () => release());
    const done = second.waitFor(id);
    await second.start();
    await ran;
    expect((await done).status).toBe('done');
    await second.stop();
  });

  it('at start, releases only its own host\'s jobs, reading the host id literally (no LIKE wildcards)', async () => {
    const queue = new JobQueue(db);
    const mine = await queue.enqueue('literal', {});
    const other = await queue.enqueue('literal', {});
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
    const id = await queue.enqueue('orphan', {});
    await db('jobs').where({ id }).update({ status: 'running', locked_by: 'other-host:1:abcd', locked_until: '2000-01-01T00:00:00.000Z' });
    const worker = new JobWorker(queue, log, fast);
    worker.register('orphan', async () => {});
    const done = worker.waitFor(id);
    await worker.start();
    expect((await done).status).toBe('done');
    await worker.stop();
  });

  it('does not take a job another live worker holds', async () => {
    const queue = new JobQueue(db);
    const id = await queue.enqueue('held', {});
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
    for (const w of workers) w.register('count', handler);
    const ids: number[] = [];
    for (let n = 0; n < 20; n++) ids.push(await queue.enqueue('count', { n }));
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
    const id = await queue.enqueue('crashy', { n: 7 }, { maxAttempts: 2 });
    // Two claims whose workers vanished (the process died mid-job each time).
    await db('jobs').where({ id }).update({ status: 'running', attempts: 2, locked_by: 'other-host:1:dead', locked_until: '2000-01-01T00:00:00.000Z' });
    const worker = new JobWorker(queue, log, fast);
    let ran = false;
    const exhausted: unknown[] = [];
    worker.register(
      'crashy',
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
    worker.register('quick', (_p, _job) => {
      worker.emit('started:quick');
      return new Promise<void>((resolve) => (finishQuick = resolve));
    });
    worker.register('stuck', (_p, _job, ctx) => {
      worker.emit('started:stuck');
      return new Promise<void>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    });
    const quickStarted = started('quick');
    const stuckStarted = started('stuck');
    const quick = await queue.enqueue('quick', {});
    const stuck = await queue.enqueue('stuck', {});
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
