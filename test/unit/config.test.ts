import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has embedded defaults: port 8228, SQLite under ./data, HS256 with a generated secret', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8228);
    expect(c.dataDir).toMatch(/\/data$/);
    expect(c.databaseUrl).toBeNull();
    expect(c.jwt).toMatchObject({ algorithm: 'HS256', secret: null });
    expect(c.tokenTtlSeconds).toBe(3600);
    expect(c.bodyLimitBytes).toBe(1024 * 1024);
  });

  it('parses sizes and numbers', () => {
    const c = loadConfig({ VIGIL_BODY_LIMIT: '512kb', VIGIL_PORT: '9000', VIGIL_DATABASE_URL: 'postgres://u:p@h:5432/d' });
    expect(c.bodyLimitBytes).toBe(512 * 1024);
    expect(c.port).toBe(9000);
    expect(c.databaseUrl).toBe('postgres://u:p@h:5432/d');
  });

  it.each([
    [{ VIGIL_PORT: 'abc' }, 'VIGIL_PORT', /whole number/],
    [{ VIGIL_PORT: '70000' }, 'VIGIL_PORT', /0 to 65535/],
    [{ VIGIL_DATABASE_URL: 'mysql://x' }, 'VIGIL_DATABASE_URL', /postgres/],
    [{ VIGIL_LOG_LEVEL: 'loud' }, 'VIGIL_LOG_LEVEL', /one of/],
    [{ VIGIL_BODY_LIMIT: 'lots' }, 'VIGIL_BODY_LIMIT', /size/],
    [{ VIGIL_TLS_CERT_FILE: '/x.pem' }, 'VIGIL_TLS_KEY_FILE', /both/],
    [{ VIGIL_JWT_SECRET: 'short' }, 'VIGIL_JWT_SECRET', /32 bytes/],
    [{ VIGIL_JWT_ALGORITHM: 'HS512' }, 'VIGIL_JWT_ALGORITHM', /HS256, RS256 or ES256/],
    [{ VIGIL_JWT_ALGORITHM: 'RS256' }, 'VIGIL_JWT_PRIVATE_KEY_FILE', /needs both/],
    [{ VIGIL_JWT_PRIVATE_KEY_FILE: '/no/such/file.pem' }, 'VIGIL_JWT_PRIVATE_KEY_FILE', /cannot read/],
    [{ VIGIL_ADMIN_PASSWORD: 'short' }, 'VIGIL_ADMIN_PASSWORD', /8 characters/],
  ])('rejects %o naming the variable', (env, variable, message) => {
    const err = errorOf(env);
    expect(err.variable).toBe(variable);
    expect(err.message).toMatch(message);
    expect(err.message.startsWith(`${variable}:`)).toBe(true);
  });
});
