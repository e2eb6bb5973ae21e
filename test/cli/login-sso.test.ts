/**
 * `vigil login --sso`: the CLI signs in through an OpenID Connect provider (oidc-provider on loopback) with the
 * device grant Vigil brokers. The test plays the user: it approves the code the CLI shows, at the provider.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { createAccount, uniqueName } from '../support/fixtures.js';
import { json } from '../support/http.js';
import { CLIENT_ID, CLIENT_SECRET, TestOidcProvider } from '../support/oidc-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { validatingFetch } from './support.js';

let server: TestServer;
let idp: TestOidcProvider;
let work: string;
let account: string;
const violations: string[] = [];

/** Runs the CLI; `onStderr` sees each line it writes for people (where the code to approve appears). */
async function cli(args: string[], onStderr: (text: string) => void = () => {}) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (s: string) => void (stdout += s), isTTY: false },
    stderr: {
      write: (s: string) => {
        stderr += s;
        onStderr(s);
      },
      isTTY: false,
    },
    env: { HOME: work, XDG_CONFIG_HOME: join(work, 'config'), VIGIL_URL: server.url },
    fetch: validatingFetch(violations),
    pollIntervalMs: 20,
  });
  expect(violations).toEqual([]);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-sso-'));
  server = await startTestServer();
  idp = await TestOidcProvider.start([`${server.url}/v2/rbac-manager/oidc/callback/corp`]);
  account = (await createAccount(server.url)).name;
  const res = await json(server.url, 'POST', '/v2/rbac-manager/oidc/providers', {
    name: 'corp',
    issuer: idp.issuer,
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    redirect_uri: `${server.url}/v2/rbac-manager/oidc/callback/corp`,
    scopes: ['openid', 'profile', 'vigil'],
    default_account: account,
    default_role: 'read-only',
  });
  expect(res.status, res.text).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await idp?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('vigil login --sso', () => {
  it('shows the code to approve, waits for the approval and keeps the session as a context', async () => {
    const username = uniqueName('cli-user');
    let approval: Promise<void> | undefined;
    const login = await cli(['login', '--sso', 'corp', '--name', 'work'], (text) => {
      const code = /enter the code (\S+)/.exec(text)?.[1];
      if (code && !approval) approval = idp.approveDevice(code, username);
    });
    expect(login.stderr).toContain(`open ${idp.issuer}/device`);
    expect(login.code, login.stderr).toBe(0);
    await approval;
    expect(login.stderr).toContain(`logged in to ${server.url} as ${username} (account ${account}); context work saved`);
    const config = yaml.load(readFileSync(join(work, 'config', 'vigil', 'config.yaml'), 'utf8')) as { contexts: Record<string, Record<string, string>> };
    expect(config.contexts.work).toMatchObject({ url: server.url, username });
    expect(config.contexts.work!.token).toBeTruthy();
    expect(config.contexts.work!['refresh-token']).toBeTruthy();

    const me = await cli(['account', 'get', '-o', 'json']);
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).name).toBe(account);
  });

  it('fails with exit code 2 for an unknown provider', async () => {
    const res = await cli(['login', '--sso', 'nobody']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/OpenID Connect provider 'nobody' does not exist \(HTTP 404 not_found/);
  });
});
