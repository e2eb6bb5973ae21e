/**
 * Issue 14, item 11: SIGTERM ends the process within VIGIL_SHUTDOWN_TIMEOUT_MS whatever the log reader does
 * (`vigil | head -4`: a pipe nobody reads any more) and whatever is still running.
 */
import { request } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../support/db.js';
import { adminAuth, authHeader, raw } from '../support/http.js';
import { startVigil, stopVigil, type VigilChild } from '../support/vigil-process.js';
import { LogSink } from '../../src/util/log-sink.js';

const SHUTDOWN_TIMEOUT_MS = 1500;
/** Starting a child process (TypeScript compiled on the fly) takes seconds on a loaded machine. */
const CHILD_TEST_TIMEOUT_MS = 60_000;
let scratch: ScratchDatabase;
let child: VigilChild | undefined;

beforeAll(async () => {
  scratch = await createScratchDatabase();
});
afterEach(async () => {
  await stopVigil(child, 'SIGKILL');
  child = undefined;
});
afterAll(async () => {
  await scratch?.drop();
});

/** Stops reading the child's standard output: from now on its log lines fill the pipe and then stay with it. */
function stopReadingStdout(c: VigilChild): void {
  c.proc.stdout!.removeAllListeners('data');
  c.proc.stdout!.pause();
}

function exitOf(c: VigilChild): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return Promise.resolve({ code: c.proc.exitCode, signal: c.proc.signalCode });
  return new Promise((resolve) => c.proc.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('shutdown', () => {
  it('exits on SIGTERM although the log reader stopped reading', async () => {
    child = await startVigil(scratch, { VIGIL_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });
    stopReadingStdout(child);
    // Each 404 logs its 8 kB path at info level: 120 of them are about 1 MB, far past what the pipe and this
    // side's stream buffer hold, so the process has log output it cannot hand over when the signal comes.
    const path = `/v2/no-such-route/${'x'.repeat(8000)}`;
    for (let i = 0; i < 120; i++) expect((await raw(child.url, 'GET', path, { auth: null })).status).toBe(404);

    const exited = exitOf(child);
    child.proc.kill('SIGTERM');
    // The test's own timeout is the only bound: before the fix the process never exited.
    const { code, signal } = await exited;
    expect(signal).toBeNull();
    // Everything stopped in order; only log lines the reader never took are lost.
    expect(code).toBe(0);
  }, CHILD_TEST_TIMEOUT_MS);

  it('exits at the deadline with status 3 when a request is still running then', async () => {
    child = await startVigil(scratch, { VIGIL_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });
    // An archive upload whose body never ends keeps its request in flight. With `Expect: 100-continue` the server
    // answers 100 as soon as it has the request's head, which is the moment it is in flight.
    const upload = request(`${child.url}/v2/images/archives`, {
      method: 'POST',
      headers: { ...authHeader(adminAuth), 'content-type': 'application/x-tar', expect: '100-continue' },
    });
    upload.on('error', () => undefined); // the connection dies with the process
    await new Promise<void>((resolve) => upload.once('continue', () => resolve()));
    upload.write(Buffer.alloc(512));

    const exited = exitOf(child);
    child.proc.kill('SIGTERM');
    const { code, signal } = await exited;
    expect(signal).toBeNull();
    expect(code).toBe(3);
    upload.destroy();
  }, CHILD_TEST_TIMEOUT_MS);
});

describe('log sink', () => {
  it('keeps at most its limit waiting for a reader that stalls, then says how many lines it dropped', async () => {
    const taken: string[] = [];
    let release: (() => void)[] = [];
    // A reader that takes each chunk only when told to.
    const reader = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        taken.push(chunk.toString());
        release.push(done);
      },
    });
    const sink = new LogSink(reader, 1000);
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 100; i++) sink.write(line);
    expect(reader.writableLength).toBeLessThanOrEqual(1000 + line.length);

    const drained = sink.drained();
    while (release.length > 0) {
      const pending = release;
      release = [];
      for (const done of pending) done();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await drained;
    sink.write('after\n');
    while (release.length > 0) release.shift()!();
    const notice = taken.find((t) => t.includes('log lines were dropped'));
    expect(JSON.parse(notice!)).toMatchObject({ level: 40, msg: expect.stringMatching(/^\d+ log lines were dropped/) });
    expect(taken.at(-1)).toBe('after\n');
  });
});
