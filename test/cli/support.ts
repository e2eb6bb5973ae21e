/**
 * The CLI test harness shared by the files of test/cli: a real server with a local feed and a loopback registry,
 * and `cli()`, which runs the whole CLI in process through run() with every REST answer checked against the
 * spec and every GraphQL answer against the reports SDL (violations are collected and must stay empty).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'graphql';
import { afterAll, beforeAll, expect } from 'vitest';
import { run } from '../../src/cli/main.js';
import { DEBIAN_OS_RELEASE, DPKG_STATUS, STATUS_D_LIBSSL3 } from '../support/ecosystem-fixtures.js';
import { assertGraphqlResponse } from '../support/graphql.js';
import { buildImage } from '../support/image-builder.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../support/server.js';
import { assertResponseMatchesSpec } from '../support/spec-validator.js';
import { KEV_CATALOG, initialRecords, writeRecords } from '../vulns/fixture-feed.js';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  tty?: boolean;
  /** false: no VIGIL_USERNAME/VIGIL_PASSWORD (the admin's) in the environment. */
  credentials?: boolean;
  /** Ends a command that runs until interrupted (events list --follow), as Ctrl-C does. */
  signal?: AbortSignal;
  /** Called with everything written to stdout so far, after each write. */
  onStdout?: (stdout: string) => void;
}

export interface CliHarness {
  server: TestServer;
  registry: TestRegistry;
  /** A temporary directory, HOME of the CLI runs; removed after the file's tests. */
  work: string;
  configHome: string;
  cli(args: string[], options?: CliOptions): Promise<Ran>;
}

const GRAPHQL_PATHS = new Set(['/v2/reports/graphql', '/v2/reports/global/graphql']);

/** Every answer the CLI receives, checked against the spec (REST) or the SDL (GraphQL). */
export function validatingFetch(violations: string[]) {
  return async (request: Request): Promise<Response> => {
    const sent = GRAPHQL_PATHS.has(new URL(request.url).pathname) ? await request.clone().text() : undefined;
    const response = await fetch(request);
    const text = await response.clone().text();
    try {
      if (sent === undefined) assertResponseMatchesSpec(request.method, response.url, response.status, response.headers.get('content-type'), text);
      else if (response.ok) assertGraphqlResponse(parse((JSON.parse(sent) as { query: string }).query), undefined, JSON.parse(text));
    } catch (err) {
      violations.push(`${request.method} ${response.url}: ${(err as Error).message}`);
    }
    return response;
  };
}

export const debianImage = (marker: string) =>
  buildImage({
    layers: [
      [
        { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
        { path: 'var/lib/dpkg/status', content: DPKG_STATUS },
        { path: 'var/lib/dpkg/status.d/libssl3', content: STATUS_D_LIBSSL3 },
      ],
      [{ path: 'etc/build-marker', content: marker }],
    ],
  });

/** An AbortSignal standing in for Ctrl-C. */
function abortAsInterrupt(signal: AbortSignal) {
  return (onInterrupt: () => void) => {
    signal.addEventListener('abort', onInterrupt, { once: true });
    return () => signal.removeEventListener('abort', onInterrupt);
  };
}

/** Starts the server (with the fixture OSV and KEV feeds configured) and a registry for the calling test file. */
export function useCliHarness(): CliHarness {
  const violations: string[] = [];
  const fetchChecked = validatingFetch(violations);
  const h = {} as CliHarness;
  h.cli = async (args, options = {}) => {
    let stdout = '';
    let stderr = '';
    const env = {
      HOME: h.work,
      XDG_CONFIG_HOME: h.configHome,
      VIGIL_URL: h.server.url,
      ...(options.credentials === false ? {} : { VIGIL_USERNAME: 'admin', VIGIL_PASSWORD: ADMIN_PASSWORD }),
      ...options.env,
    };
    const code = await run(args, {
      stdout: {
        write: (s: string) => {
          stdout += s;
          options.onStdout?.(stdout);
        },
        isTTY: options.tty ?? false,
      },
      stderr: { write: (s: string) => (stderr += s), isTTY: false },
      env,
      fetch: fetchChecked,
      pollIntervalMs: 20,
      ...(options.signal ? { interrupts: abortAsInterrupt(options.signal) } : {}),
    });
    expect(violations).toEqual([]);
    return { code, stdout, stderr };
  };
  beforeAll(async () => {
    h.work = mkdtempSync(join(tmpdir(), 'vigil-cli-'));
    h.configHome = join(h.work, 'config');
    writeRecords(join(h.work, 'osv'), initialRecords());
    writeFileSync(join(h.work, 'kev.json'), JSON.stringify(KEV_CATALOG));
    [h.server, h.registry] = await Promise.all([startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(h.work, 'osv')},kev=${join(h.work, 'kev.json')}` }), startRegistry()]);
  });
  afterAll(async () => {
    await Promise.all([h.server?.close(), h.registry?.close()]);
    if (h.work) rmSync(h.work, { recursive: true, force: true });
  });
  return h;
}
