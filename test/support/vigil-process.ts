/**
 * Vigil as a child process (`node --import tsx src/main.ts`) for tests that kill it for real (SIGKILL) and start
 * another on the same data dir and database, and bounded waits for what such tests await.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseEnv, type ScratchDatabase } from './db.js';
import { freePort } from './registry.js';
import { LOOPBACK_ALLOW } from './outbound.js';
import { ADMIN_PASSWORD } from './server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const READY_TIMEOUT_MS = 15_000;

/** Resolves with the promise, or rejects naming `what` after `ms`. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks `check` every `intervalMs` until it answers something other than undefined, and resolves with that; rejects
 * naming `what` after `ms`. For state in another process or the database, where there is no event to await.
 */
export async function pollUntil<T>(ms: number, what: string, check: () => Promise<T | undefined>, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface VigilChild {
  proc: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<void>;
}

export interface StartVigilOptions {
  /** How long to wait for GET /v2/health (15 s by default); more for several processes starting at once. */
  readyTimeoutMs?: number;
}

export async function startVigil(scratch: ScratchDatabase, env: Record<string, string> = {}, options: StartVigilOptions = {}): Promise<VigilChild> {
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const port = await freePort();
  let out = '';
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? scratch.dataDir,
      VIGIL_HOST: '127.0.0.1',
      VIGIL_PORT: String(port),
      VIGIL_DATA_DIR: scratch.dataDir,
      VIGIL_ADMIN_PASSWORD: ADMIN_PASSWORD,
      VIGIL_ARGON2_MEMORY_KIB: '1024',
      VIGIL_ARGON2_TIME_COST: '1',
      VIGIL_LOG_LEVEL: 'info',
      VIGIL_OUTBOUND_ALLOW: LOOPBACK_ALLOW, // as startTestServer: the suite's registries and receivers are on loopback
      ...databaseEnv(scratch),
      ...env,
    },
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  proc.stdout!.on('data', (chunk: Buffer) => (out = (out + chunk.toString()).slice(-20_000)));
  proc.stderr!.on('data', (chunk: Buffer) => (out = (out + chunk.toString()).slice(-20_000)));
  const child = { proc, url, output: () => out, exited };
  // Ready when GET /v2/health answers 200: polled every 100 ms, bounded, failing at once if the process exits.
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`vigil exited during start-up (${proc.exitCode ?? proc.signalCode}): ${out}`);
    const ok = await fetch(`${url}/v2/health`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stopVigil(child, 'SIGKILL');
      throw new Error(`vigil did not answer GET /v2/health within ${readyTimeoutMs} ms\n--- vigil output ---\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

export async function stopVigil(child: VigilChild | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill(signal);
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 10_000);
  await child.exited;
  clearTimeout(timer);
}
