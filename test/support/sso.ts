/** What the single sign-on tests (SAML, OpenID Connect) ask of the server: log capture, users, effective roles. */
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { uniqueName } from './fixtures.js';
import { json, raw, type Auth } from './http.js';
import { CLIENT_ID, CLIENT_SECRET, type TestOidcProvider } from './oidc-provider.js';

/** A log destination for startTestServer that keeps each JSON line, to check what a refusal logged. */
export function capturedLogs(): { stream: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { stream, lines };
}

export async function userExists(url: string, username: string): Promise<boolean> {
  const res = await raw(url, 'GET', '/v2/accounts/users');
  expect(res.status, res.text).toBe(200);
  return res.json.items.some((u: { username: string }) => u.username === username);
}

/** The caller's roles as `my-roles` lists them, one entry per account and role. */
export async function myRoles(url: string, auth: Auth): Promise<{ domain_name: string; role: string }[]> {
  const res = await raw(url, 'GET', '/v2/rbac-manager/my-roles', { auth });
  expect(res.status, res.text).toBe(200);
  return res.json.map((r: { domain_name: string; roles: { name: string } }) => ({ domain_name: r.domain_name, role: r.roles.name }));
}

/** A new user group (as the administrator) holding `role` in `account`. */
export async function groupWithRole(url: string, account: string, role: string): Promise<{ uuid: string; name: string }> {
  const name = uniqueName('group');
  const created = await json(url, 'POST', '/v2/system/user-groups', { name });
  expect(created.status, created.text).toBe(201);
  const uuid = created.json.group_uuid as string;
  const granted = await json(url, 'POST', `/v2/system/user-groups/${uuid}/roles`, { domain_name: account, roles: [{ role }] });
  expect(granted.status, granted.text).toBe(201);
  return { uuid, name };
}

/** Configures `name` at Vigil (as the administrator) for the test OpenID Connect provider, its callback on `url`. */
export async function configureTestOidcProvider(url: string, idp: TestOidcProvider, name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await json(url, 'POST', '/v2/rbac-manager/oidc/providers', {
    name,
    issuer: idp.issuer,
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    redirect_uri: `${url}/v2/rbac-manager/oidc/callback/${name}`,
    scopes: ['openid', 'profile', 'vigil'],
    ...extra,
  });
  expect(res.status, res.text).toBe(200);
}
