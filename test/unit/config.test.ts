import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settingNames, unknownSettingMessage, unknownSettings } from '../../src/config.js';

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

  it('names the node in the service registry by host name unless VIGIL_HOST_ID says otherwise', () => {
    expect(loadConfig({})).toMatchObject({ hostId: hostname(), heartbeatSeconds: 30 });
    expect(loadConfig({ VIGIL_HOST_ID: 'node-a.prod', VIGIL_HEARTBEAT_SECONDS: '5' })).toMatchObject({ hostId: 'node-a.prod', heartbeatSeconds: 5 });
    expect(errorOf({ VIGIL_HOST_ID: 'node a' }).variable).toBe('VIGIL_HOST_ID');
    // Claims store the node id with a process token in 128 characters: 64 is the longest id.
    expect(loadConfig({ VIGIL_HOST_ID: 'n'.repeat(64) }).hostId).toHaveLength(64);
    expect(errorOf({ VIGIL_HOST_ID: 'n'.repeat(65) }).message).toMatch(/expected 1-64 letters/);
    expect(errorOf({ VIGIL_HEARTBEAT_SECONDS: '0' }).variable).toBe('VIGIL_HEARTBEAT_SECONDS');
  });

  it('reads the outbound allow-lists, naming the variable of a bad entry', () => {
    expect(loadConfig({}).outbound).toEqual({ allow: null, registryAllow: null });
    expect(loadConfig({ VIGIL_OUTBOUND_ALLOW: 'smtp.internal', VIGIL_REGISTRY_ALLOW: '10.1.2.3/32,registry.internal' }).outbound).toEqual({
      allow: 'smtp.internal',
      registryAllow: '10.1.2.3/32,registry.internal',
    });
    expect(errorOf({ VIGIL_OUTBOUND_ALLOW: '10.0.0.0/33' }).variable).toBe('VIGIL_OUTBOUND_ALLOW');
    const bad = errorOf({ VIGIL_REGISTRY_ALLOW: 'registry.internal, http://x' });
    expect(bad.variable).toBe('VIGIL_REGISTRY_ALLOW');
    expect(bad.message).toContain('"http://x"');
  });

  it('reads the runtime inventory settings: TTL, analysis of running images and its bound per report', () => {
    expect(loadConfig({}).inventory).toEqual({ ttlSeconds: 86400, analyze: true, analyzeMaxPerReport: 50, maxReportBytes: 64 * 1024 ** 2 });
    const c = loadConfig({ VIGIL_INVENTORY_TTL_SECONDS: '600', VIGIL_INVENTORY_ANALYZE: 'false', VIGIL_INVENTORY_ANALYZE_MAX_PER_REPORT: '5', VIGIL_INVENTORY_MAX_REPORT_BYTES: '8mb' });
    expect(c.inventory).toEqual({ ttlSeconds: 600, analyze: false, analyzeMaxPerReport: 5, maxReportBytes: 8 * 1024 ** 2 });
    expect(errorOf({ VIGIL_INVENTORY_MAX_REPORT_BYTES: 'huge' }).variable).toBe('VIGIL_INVENTORY_MAX_REPORT_BYTES');
    expect(errorOf({ VIGIL_INVENTORY_TTL_SECONDS: '0' }).variable).toBe('VIGIL_INVENTORY_TTL_SECONDS');
    expect(errorOf({ VIGIL_INVENTORY_ANALYZE: 'sometimes' }).variable).toBe('VIGIL_INVENTORY_ANALYZE');
    expect(errorOf({ VIGIL_INVENTORY_ANALYZE_MAX_PER_REPORT: '0' }).variable).toBe('VIGIL_INVENTORY_ANALYZE_MAX_PER_REPORT');
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
    [{ VIGIL_SAML_SP_KEY_FILE: '/no/such/key.pem' }, 'VIGIL_SAML_SP_KEY_FILE', /cannot read/],
    [{ VIGIL_SAML_SP_KEY_FILE: import.meta.filename, VIGIL_SAML_SP_CERT_FILE: import.meta.filename }, 'VIGIL_SAML_SP_KEY_FILE', /not a PEM private key/],
  ])('rejects %o naming the variable', (env, variable, message) => {
    const err = errorOf(env);
    expect(err.variable).toBe(variable);
    expect(err.message).toMatch(message);
    expect(err.message.startsWith(`${variable}:`)).toBe(true);
  });

  it('reads feed sources from VIGIL_FEED_SOURCES and VIGIL_FEED_SOURCES_FILE, named or not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-config-'));
    try {
      const file = join(dir, 'sources.txt');
      writeFileSync(file, '# mirrors\nkev=/mirror/kev.json\n\n/mirror/alpine-secdb   # secdb tree\n');
      const c = loadConfig({
        VIGIL_FEED_SOURCES: 'https://osv.example/PyPI/all.zip, debian=https://user:pw@osv.example/Debian/all.zip,relative/dir',
        VIGIL_FEED_SOURCES_FILE: file,
      });
      expect(c.feeds.sources).toEqual([
        { name: null, location: 'https://osv.example/PyPI/all.zip' },
        { name: 'debian', location: 'https://user:pw@osv.example/Debian/all.zip' },
        { name: null, location: resolve('relative/dir') },
        { name: 'kev', location: '/mirror/kev.json' },
        { name: null, location: '/mirror/alpine-secdb' },
      ]);
      expect(c.feeds).toMatchObject({ syncSchedule: '17 */6 * * *', syncOnStart: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects bad feed settings, naming the variable', () => {
    expect(errorOf({ VIGIL_FEED_SOURCES: 'ftp://osv.example/all.zip' }).variable).toBe('VIGIL_FEED_SOURCES');
    expect(errorOf({ VIGIL_FEED_SOURCES: 'Bad Name=/x' }).message).toMatch(/feed name/);
    expect(errorOf({ VIGIL_FEED_SOURCES: 'a=/x,a=/y' }).message).toMatch(/used twice/);
    expect(errorOf({ VIGIL_FEED_SOURCES_FILE: '/nonexistent/sources.txt' }).variable).toBe('VIGIL_FEED_SOURCES_FILE');
    expect(errorOf({ VIGIL_FEED_SYNC_SCHEDULE: 'every day' }).variable).toBe('VIGIL_FEED_SYNC_SCHEDULE');
    expect(errorOf({ VIGIL_FEED_SYNC_ON_START: 'sometimes' }).variable).toBe('VIGIL_FEED_SYNC_ON_START');
    expect(loadConfig({ VIGIL_FEED_SYNC_SCHEDULE: 'off' }).feeds.syncSchedule).toBeNull();
    expect(loadConfig({}).feeds.maxRecordBytes).toBe(16 * 1024 ** 2);
    expect(loadConfig({ VIGIL_FEED_MAX_RECORD_BYTES: '1mb' }).feeds.maxRecordBytes).toBe(1024 ** 2);
    // A record is parsed as one string: the limit stays well below V8's.
    expect(errorOf({ VIGIL_FEED_MAX_RECORD_BYTES: '1gb' }).message).toMatch(/at most 268435456/);
  });

  it('reads the content scan settings: retrieved files, secret and content search expressions, size limits', () => {
    const defaults = loadConfig({}).analysis.content;
    expect(defaults.retrieveFiles).toContain('/etc/passwd');
    expect(defaults.secretSearch.map((p) => p.name)).toEqual(['AWS_ACCESS_KEY', 'AWS_SECRET_KEY', 'PRIV_KEY', 'DOCKER_AUTH', 'API_KEY']);
    expect(defaults).toMatchObject({ contentSearch: [], searchMaxFileBytes: 10_000, retrieveMaxBytes: 1000 * 1024 });
    const custom = loadConfig({
      VIGIL_RETRIEVE_FILES: '/etc/passwd, /etc/httpd.conf',
      VIGIL_RETRIEVE_FILES_MAX_BYTES: '64kb',
      VIGIL_SECRET_SEARCH_REGEXES: '{}',
      VIGIL_CONTENT_SEARCH_REGEXES: '{"PASSWORD": "(?i).*password=.*"}',
      VIGIL_SEARCH_MAX_FILE_BYTES: '2kb',
    }).analysis.content;
    expect(custom).toEqual({
      retrieveFiles: ['/etc/passwd', '/etc/httpd.conf'],
      retrieveMaxBytes: 64 * 1024,
      secretSearch: [],
      contentSearch: [{ name: 'PASSWORD', regex: '(?i).*password=.*' }],
      searchMaxFileBytes: 2048,
    });
    expect(loadConfig({ VIGIL_RETRIEVE_FILES: '' }).analysis.content.retrieveFiles).toEqual([]);
  });

  it('rejects bad content scan settings, naming the variable and the problem', () => {
    expect(errorOf({ VIGIL_RETRIEVE_FILES: 'etc/passwd' }).variable).toBe('VIGIL_RETRIEVE_FILES');
    expect(errorOf({ VIGIL_RETRIEVE_FILES: '/etc/../shadow' }).message).toMatch(/absolute file paths/);
    expect(errorOf({ VIGIL_SECRET_SEARCH_REGEXES: '["a"]' }).message).toMatch(/JSON object/);
    expect(errorOf({ VIGIL_SECRET_SEARCH_REGEXES: '{"has space": "x"}' }).message).toMatch(/expression name/);
    expect(errorOf({ VIGIL_CONTENT_SEARCH_REGEXES: '{"BAD": "(unclosed"}' })).toMatchObject({ variable: 'VIGIL_CONTENT_SEARCH_REGEXES', message: expect.stringMatching(/BAD.*not a valid regular expression/) });
    expect(errorOf({ VIGIL_CONTENT_SEARCH_REGEXES: '{"N": 5}' }).message).toMatch(/must be a string/);
  });

  it('reads VIGIL_ROLES: all by default, any subset in canonical order, and stops at an unknown role naming the valid ones', () => {
    const every = ['api', 'analyzer', 'feeds', 'reports', 'notifications', 'scheduler'];
    expect(loadConfig({}).roles).toEqual(every);
    expect(loadConfig({ VIGIL_ROLES: 'all' }).roles).toEqual(every);
    expect(loadConfig({ VIGIL_ROLES: ' scheduler, API ,analyzer,analyzer' }).roles).toEqual(['api', 'analyzer', 'scheduler']);
    expect(loadConfig({ VIGIL_ROLES: 'analyzer,all' }).roles).toEqual(every);
    expect(() => loadConfig({ VIGIL_ROLES: 'api,worker' })).toThrow(ConfigError);
    expect(() => loadConfig({ VIGIL_ROLES: 'api,worker' })).toThrow(
      'VIGIL_ROLES: "worker" is not a role; expected "all" or a comma-separated list of api, analyzer, feeds, reports, notifications, scheduler',
    );
    expect(() => loadConfig({ VIGIL_ROLES: ' , ' })).toThrow(/^VIGIL_ROLES: " , " is not a role/);
  });

  it('reads the log format: auto by default, json or pretty, nothing else', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ VIGIL_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ VIGIL_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(errorOf({ VIGIL_LOG_FORMAT: 'text' })).toMatchObject({ variable: 'VIGIL_LOG_FORMAT', message: expect.stringMatching(/auto, json or pretty/) });
    expect(unknownSettings({ VIGIL_LOG_FORMAT: 'json', VIGIL_LOGFORMAT: 'json' })).toEqual([{ variable: 'VIGIL_LOGFORMAT', closest: 'VIGIL_LOG_FORMAT' }]);
  });
});

describe('unknown VIGIL_ variables', () => {
  it('knows every variable docs/configuration.md documents, and no other', () => {
    const tableRows = readFileSync(resolve('docs/configuration.md'), 'utf8').split('\n').filter((line) => line.startsWith('| `VIGIL_'));
    const documented = new Set(tableRows.flatMap((row) => row.split(' | ')[0].match(/VIGIL_[A-Z0-9_]+/g) ?? []));
    expect([...settingNames()]).toEqual([...documented].sort());
    expect(settingNames()).toContain('VIGIL_FEED_SOURCES');
  });

  it('names each unknown one once, with the setting it most likely meant', () => {
    const unknown = unknownSettings({ VIGIL_FEED_SOURCE: 'default', VIGIL_PORT: '9000', VIGIL_LOGLEVEL: 'debug', VIGIL_NOTHING_LIKE_IT: '1', HOME: '/root' });
    expect(unknown).toEqual([
      { variable: 'VIGIL_FEED_SOURCE', closest: 'VIGIL_FEED_SOURCES' },
      { variable: 'VIGIL_LOGLEVEL', closest: 'VIGIL_LOG_LEVEL' },
      { variable: 'VIGIL_NOTHING_LIKE_IT', closest: null },
    ]);
    expect(unknownSettingMessage(unknown[0])).toBe('VIGIL_FEED_SOURCE is not a Vigil setting and is ignored; did you mean VIGIL_FEED_SOURCES?');
    expect(unknownSettingMessage(unknown[2])).toMatch(/^VIGIL_NOTHING_LIKE_IT is not a Vigil setting and is ignored \(docs/);
  });

  it('does not stop start-up', () => {
    expect(loadConfig({ VIGIL_FEED_SOURCE: 'default' }).feeds.sources).toEqual([]);
  });
});
