/**
 * What every command needs from the run it is part of: the I/O it was given, the connection and typed client
 * for its flags, output in the chosen format, progress display, and the exit code it settles on.
 */
import type { Command } from 'commander';
import type { VigilClient } from '../../generated/client.js';
import { apiClient, graphql, ok, type Fetch, type GraphqlAnswer } from './api.js';
import { configPath, readConfig, resolveConnection, type Connection, type ConnectionFlags, type Env } from './connection.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { colourEnabled, parseFormat, render, rowStream, type Column, type OutputStream, type View } from './output.js';
import { startProgress, type Progress } from './progress.js';
import { freshToken } from './tokens.js';

export interface CliIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Env;
  /** The fetch the API client uses (tests pass one that checks every answer against the spec). */
  fetch?: Fetch;
  /** How often --wait and --follow poll the API (default one second). */
  pollIntervalMs?: number;
  /**
   * Subscribes to interrupts (Ctrl-C) and answers the unsubscribe function. Only commands that run until
   * interrupted (--follow) subscribe, to end cleanly with exit code 0; the others keep the default (killed).
   */
  interrupts?: (onInterrupt: () => void) => () => void;
}

export type Call = <R extends { data?: unknown; error?: unknown; response: Response }>(p: Promise<R>) => Promise<NonNullable<R['data']>>;

export interface Api {
  client: VigilClient;
  call: Call;
  connection: Connection;
  /** A query or mutation on the reports GraphQL endpoint, with the same connection. */
  graphql: (query: string, variables?: Record<string, unknown>) => Promise<GraphqlAnswer>;
}

export interface GlobalOptions extends ConnectionFlags {
  output: string;
}

export class Session {
  exitCode: ExitCode = EXIT.ok;

  constructor(
    readonly io: CliIO,
    readonly version: string,
  ) {}

  get pollIntervalMs(): number {
    return this.io.pollIntervalMs ?? 1000;
  }

  options(cmd: Command): GlobalOptions {
    return cmd.optsWithGlobals<GlobalOptions>();
  }

  configPath(): string {
    return configPath(this.io.env);
  }

  /** The connection for this command's flags, with a context's expired token renewed first. */
  async connection(cmd: Command): Promise<Connection> {
    const path = this.configPath();
    const config = readConfig(path);
    const connection = resolveConnection(this.options(cmd), this.io.env, config);
    if (connection.credentials.kind !== 'bearer' || !connection.context) return connection;
    const anonymous = apiClient({ ...connection, credentials: { kind: 'none' } }, this.io.fetch, this.userAgent);
    const token = await freshToken(anonymous, connection.url, config, path, connection.context);
    return { ...connection, credentials: { kind: 'bearer', token } };
  }

  get userAgent(): string {
    return `vigil-cli/${this.version}`;
  }

  /** The typed client for this command's connection, and `call()` to unwrap its answers. */
  async api(cmd: Command): Promise<Api> {
    const connection = await this.connection(cmd);
    const client = apiClient(connection, this.io.fetch, this.userAgent);
    return {
      client,
      connection,
      call: (p) => ok(p, connection.url),
      graphql: (query, variables) => graphql(connection, this.io.fetch, this.userAgent, query, variables),
    };
  }

  print<T>(cmd: Command, view: View<T>): void {
    const format = parseFormat(this.options(cmd).output);
    this.io.stdout.write(render(view, format, colourEnabled(this.io.stdout, this.io.env)));
  }

  /** A printer for records that arrive over time, in the chosen format (see rowStream). */
  stream<T>(cmd: Command, columns: Column<T>[]): (batch: { data: unknown; row: T }[]) => void {
    const format = parseFormat(this.options(cmd).output);
    return rowStream(columns, format, colourEnabled(this.io.stdout, this.io.env), (text) => this.io.stdout.write(text));
  }

  /** Raw text as the API served it (SBOM documents). */
  write(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  /** A note for people, on stderr so it never mixes with the answer on stdout. */
  note(text: string): void {
    this.io.stderr.write(text + '\n');
  }

  progress(): Progress {
    return startProgress(this.io.stderr);
  }

  /** Settles on a worse exit code, never a better one. */
  fail(code: ExitCode): void {
    if (code > this.exitCode) this.exitCode = code;
  }

  /** Waits ms, or less when the signal is aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** A signal aborted by the next interrupt (Ctrl-C), which then no longer ends the process; release() when done. */
  untilInterrupted(): { signal: AbortSignal; release: () => void } {
    const controller = new AbortController();
    const release = this.io.interrupts?.(() => controller.abort()) ?? (() => {});
    return { signal: controller.signal, release };
  }
}
