import { describe, expect, it } from 'vitest';
import { assertResponseMatchesSpec, SpecViolation } from '../support/spec-validator.js';

const base = 'http://127.0.0.1:1';
const JSON_TYPE = 'application/json; charset=utf-8';
const account = { name: 'a', state: 'enabled', type: 'user', created_at: '2026-01-01T00:00:00.000Z', last_updated: '2026-01-01T00:00:00.000Z' };
const error = (code: number) => JSON.stringify({ code, error_type: 'x', message: 'm', detail: {} });

describe('the shared response validator', () => {
  it('accepts a conforming response', () => {
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/account`, 200, JSON_TYPE, JSON.stringify(account))).not.toThrow();
  });

  it('rejects a body that breaks the schema', () => {
    const bad = JSON.stringify({ ...account, state: 'sleepy' });
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/account`, 200, JSON_TYPE, bad)).toThrow(SpecViolation);
    const missing = JSON.stringify({ name: 'a' });
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/account`, 200, JSON_TYPE, missing)).toThrow(/required/);
  });

  it('rejects a status the operation does not declare', () => {
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/account`, 409, JSON_TYPE, error(409))).toThrow(/not declared/);
  });

  it("accepts a 404 for any operation only from a node whose roles (detail.vigil_roles) lack api", () => {
    const notServed = (roles: string[]) => JSON.stringify({ code: 404, error_type: 'not_found', message: 'm', detail: { path: '/v2/version', vigil_roles: roles } });
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/version`, 404, JSON_TYPE, notServed(['analyzer']))).not.toThrow();
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/version`, 404, JSON_TYPE, notServed(['api', 'analyzer']))).toThrow(/not declared/);
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/version`, 404, JSON_TYPE, error(404))).toThrow(/not declared/);
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/version`, 404, JSON_TYPE, JSON.stringify({ detail: { vigil_roles: [] } }))).toThrow(SpecViolation);
  });

  it('rejects an error body without the documented shape', () => {
    expect(() => assertResponseMatchesSpec('GET', `${base}/v2/account`, 404, JSON_TYPE, JSON.stringify({ error: 'nope' }))).toThrow(SpecViolation);
  });

  it('requires unmatched routes to answer 404/405 with the error shape', () => {
    expect(() => assertResponseMatchesSpec('GET', `${base}/images`, 404, JSON_TYPE, error(404))).not.toThrow();
    expect(() => assertResponseMatchesSpec('GET', `${base}/images`, 200, JSON_TYPE, '{}')).toThrow(/only 404\/405/);
  });

  it('checks the v1 alias answers a bare array of accounts, as GET /v2/accounts does', () => {
    for (const path of ['/v1/accounts', '/v2/accounts']) {
      expect(() => assertResponseMatchesSpec('GET', `${base}${path}`, 200, JSON_TYPE, JSON.stringify([account]))).not.toThrow();
      expect(() => assertResponseMatchesSpec('GET', `${base}${path}`, 200, JSON_TYPE, JSON.stringify({ items: [account] }))).toThrow(SpecViolation);
    }
  });
});
