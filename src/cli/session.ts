/**
 * What every command needs from the run it is part of: the I/O it was given, the connection and typed client
 * for its flags, output in the chosen format, progress display, and the exit code it settles on.
 */
import type { Command } from 'commander';
import type { VigilClient } from '../../generated/client.js';
import { apiClient, ok, type Fetch } from './api.js';
import { configPath, readConfig, resolveConnection, type Connection, type ConnectionFlags, type Env } from './connection.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { colourEnabled, parseFormat, render, type OutputStream, type View } from './output.js';
import { startProgress, type Progress } from './progress.js';
import { freshToken } from './tokens.js';

export interface CliIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Env;
  /** The fetch the API client uses (tests pass one that checks every answer against the spec). */
  fetch?: Fetch;
  /** How often --wait polls the API (default one second). */
  pollIntervalMs?: number;
}

export type Call = <R extends { data?: unknown; error?: unknown; response: Response }>(p: Promise<R>) => Promise<NonNullable<R['data']>>;

export interface Api {
  client: VigilClient;
  call: Call;
  connection: Connection;
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
    return { client, connection, call: (p) => ok(p, connection.url) };
  }

  print<T>(cmd: Command, view: View<T>): void {
    const format = parseFormat(this.options(cmd).output);
    this.io.stdout.write(render(view, format, colourEnabled(this.io.stdout, this.io.env)));
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

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}
