/**
 * HTTP helpers for tests. Every response, through the generated client or raw fetch, is validated against
 * the spec before the test sees it.
 */
import { request } from 'node:http';
import { createVigilClient, type VigilClient } from '../../generated/client.js';
import { assertResponseMatchesSpec } from './spec-validator.js';
import { ADMIN_PASSWORD } from './server.js';

export type Auth =
  | { basic: [string, string] }
  | { apiKey: string }
  | { bearer: string }
  | { header: string }
  | null;

export function authHeader(auth: Auth): Record<string, string> {
  if (!auth) return {};
  if ('basic' in auth) return { authorization: `Basic ${Buffer.from(`${auth.basic[0]}:${auth.basic[1]}`).toString('base64')}` };
  if ('apiKey' in auth) return { authorization: `Basic ${Buffer.from(`_api_key:${auth.apiKey}`).toString('base64')}` };
  if ('bearer' in auth) return { authorization: `Bearer ${auth.bearer}` };
  return { authorization: auth.header };
}

export const adminAuth: Auth = { basic: ['admin', ADMIN_PASSWORD] };

async function validated(method: string, res: Response): Promise<Response> {
  const text = await res.clone().text();
  assertResponseMatchesSpec(method, res.url, res.status, res.headers.get('content-type'), text);
  return res;
}

/** The generated typed client, with spec validation of every response. */
export function client(baseUrl: string, auth: Auth = adminAuth, headers: Record<string, string> = {}): VigilClient {
  const c = createVigilClient(baseUrl, { headers: { ...authHeader(auth), ...headers } });
  c.use({
    async onResponse({ request, response }) {
      return validated(request.method, response);
    },
  });
  return c;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A raw request for what the typed client cannot send (malformed bodies, odd content types, unknown routes). */
export async function raw(
  baseUrl: string,
  method: string,
  path: string,
  options: { auth?: Auth; headers?: Record<string, string>; body?: string | Buffer; redirect?: 'follow' | 'manual' } = {},
): Promise<RawResponse> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { ...authHeader(options.auth === undefined ? adminAuth : options.auth), ...(options.headers ?? {}) },
    body: options.body,
    redirect: options.redirect,
  });
  await validated(method, res);
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * A GET with the path sent exactly as written (fetch would normalise `..` away), for path-traversal checks; not
 * validated against the spec (the paths are meant to be wrong).
 */
export function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET', headers: { accept: '*/*', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function json(baseUrl: string, method: string, path: string, body: unknown, auth: Auth = adminAuth, headers: Record<string, string> = {}) {
  return raw(baseUrl, method, path, { auth, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
