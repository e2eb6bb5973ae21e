/**
 * Runtime settings (/v2/system/configurations): listed with their defaults from the environment, described by the
 * schema route, changed one at a time or by an all-or-nothing PATCH, returned to the default by DELETE. Each change
 * takes effect without a restart (the reporting refresh is re-slotted, the inventory lifetime refuses older
 * reports, the node's logger level follows), and stored values survive a restart: a second server started on the
 * same database answers them and runs by them. Administrators only.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReusableStore } from '../support/auth-fixtures.js';
import { expectValidationError, ISO_UTC } from '../support/fixtures.js';
import { ecsReport } from '../support/ecs-report.js';
import { client, json, raw } from '../support/http.js';
import { createAccount, createUser, expectForbidden, expectNotFound } from '../support/rbac-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const BASE = '/v2/system/configurations';
const FEEDS = 'feeds.sync_schedule';
const REFRESH = 'reports.refresh_interval_seconds';
const TTL = 'inventory.ttl_seconds';

let store: { env: Record<string, string>; cleanup(): Promise<void> };
let server: TestServer;

/** The due times of the waiting runs of a periodic kind (one, unless a run is in progress; none when off). */
async function waitingSlots(s: TestServer, kind: string): Promise<number[]> {
  const rows = await s.running.services.db('jobs').where({ kind, status: 'queued' }).select('run_at');
  return rows.map((r: { run_at: string }) => Date.parse(r.run_at));
}
const refreshSlots = (s: TestServer) => waitingSlots(s, 'reports_refresh');

/** A feed source (never synced here: no sync at start, scheduled ones in the future), so the feed schedule runs. */
const env = () => ({ ...store.env, VIGIL_FEED_SOURCES: `osv=${join(store.env.VIGIL_DATA_DIR!, 'no-feed')}`, VIGIL_FEED_SYNC_ON_START: 'false' });

beforeAll(async () => {
  store = await createReusableStore();
  server = await startTestServer(env());
});
afterAll(async () => {
  await server?.close();
  await store?.cleanup();
});

describe('runtime settings', () => {
  it('lists each setting with its default from the environment, and describes each in the schema route', async () => {
    const listed = await client(server.url).GET('/system/configurations');
    expect(listed.response.status).toBe(200);
    expect(listed.data!.items.map((i) => [i.key, i.value, i.source])).toEqual([
      // The test servers turn scheduled feed syncs off (VIGIL_FEED_SYNC_SCHEDULE=off).
      [FEEDS, 'off', 'default'],
      [REFRESH, 2, 'default'],
      [TTL, 86400, 'default'],
      ['log_level', 'silent', 'default'],
    ]);
    expect(listed.data!.items[1]).toMatchObject({
      requires_system_restart: false,
      is_editable: true,
      default_value: 2,
      category: 'reports',
      config_schema: { data_type: 'integer', ge: 1, le: 3600, default_value: 2 },
      title: expect.any(String),
      description: expect.stringContaining('VIGIL_REPORTS_REFRESH_SECONDS'),
    });
    expect(listed.data!.items[1].uuid).toBeUndefined();

    const schema = await client(server.url).GET('/system/configurations/schema');
    expect(schema.data).toEqual({
      [FEEDS]: { data_type: 'string', default_value: 'off', max_length: 128, is_array: false },
      [REFRESH]: { data_type: 'integer', default_value: 2, ge: 1, le: 3600, is_array: false },
      [TTL]: { data_type: 'integer', default_value: 86400, ge: 1, le: 365 * 86400, is_array: false },
      log_level: { data_type: 'string_enum', default_value: 'silent', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], is_array: false },
    });
  });

  it('moves the next reporting refresh when its interval changes, and back on DELETE', async () => {
    const put = await client(server.url).PUT('/system/configurations/{config_key}', { params: { path: { config_key: REFRESH } }, body: { key: REFRESH, value: 3600 } });
    expect(put.response.status).toBe(200);
    expect(put.data).toMatchObject({ key: REFRESH, value: 3600, source: 'api', default_value: 2, uuid: expect.any(String), created_at: expect.stringMatching(ISO_UTC), updated_at: expect.stringMatching(ISO_UTC) });
    const hourly = await refreshSlots(server);
    expect(hourly.length).toBeGreaterThan(0);
    for (const slot of hourly) {
      expect(slot % 3600_000).toBe(0);
      expect(slot).toBeGreaterThan(Date.now());
    }
    expect((await client(server.url).GET('/system/configurations/{config_key}', { params: { path: { config_key: REFRESH } } })).data).toMatchObject({ value: 3600, source: 'api' });

    const deleted = await raw(server.url, 'DELETE', `${BASE}/${REFRESH}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect((await client(server.url).GET('/system/configurations/{config_key}', { params: { path: { config_key: REFRESH } } })).data).toMatchObject({ value: 2, source: 'default' });
    const soon = Date.now() + 2000 + 1000;
    for (const slot of await refreshSlots(server)) {
      expect(slot % 2000).toBe(0);
      expect(slot).toBeLessThanOrEqual(soon);
    }
    // Deleting a setting that is not stored is fine: the default applies.
    expect((await raw(server.url, 'DELETE', `${BASE}/${REFRESH}`)).status).toBe(204);
  });

  it('schedules feed syncs by a cron expression set at run time, and none again once it is back to off', async () => {
    expect(await waitingSlots(server, 'feed_sync_schedule')).toEqual([]);
    const put = await json(server.url, 'PUT', `${BASE}/${FEEDS}`, { key: FEEDS, value: '17 3 * * *' });
    expect(put.status, put.text).toBe(200);
    const [slot, ...more] = await waitingSlots(server, 'feed_sync_schedule');
    expect(more).toEqual([]);
    const at = new Date(slot!);
    expect([at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()]).toEqual([3, 17, 0]);
    expect(slot! - Date.now()).toBeGreaterThan(0);
    expect(slot! - Date.now()).toBeLessThanOrEqual(86400_000);
    expectValidationError(await json(server.url, 'PUT', `${BASE}/${FEEDS}`, { key: FEEDS, value: 'every day' }), ['body.value']);
    expect((await raw(server.url, 'DELETE', `${BASE}/${FEEDS}`)).status).toBe(204);
    expect(await waitingSlots(server, 'feed_sync_schedule')).toEqual([]);
  });

  it('refuses inventory reports older than a shortened lifetime, and takes them again once it is back to the default', async () => {
    const patched = await json(server.url, 'PATCH', BASE, [{ key: TTL, value: 60 }]);
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.items.map((i: { key: string; value: unknown }) => [i.key, i.value])).toEqual([[TTL, 60]]);
    const old = await json(server.url, 'POST', '/v2/ecs-inventory', ecsReport('settings', 10));
    expect(old.status, old.text).toBe(400);
    expect(old.json.message).toContain('inventory.ttl_seconds=60');
    expect((await raw(server.url, 'DELETE', `${BASE}/${TTL}`)).status).toBe(204);
    const again = await json(server.url, 'POST', '/v2/ecs-inventory', ecsReport('settings', 10));
    expect(again.status, again.text).toBe(204);
  });

  it('sets the logging level of the node that takes the change', async () => {
    const { log } = server.running.services;
    const put = await json(server.url, 'PUT', `${BASE}/log_level`, { key: 'log_level', value: 'error' });
    expect(put.status, put.text).toBe(200);
    expect(log.level).toBe('error');
    expect((await raw(server.url, 'DELETE', `${BASE}/log_level`)).status).toBe(204);
    expect(log.level).toBe('silent');
  });

  it('changes several settings at once, or none when one is wrong', async () => {
    const wrong = await json(server.url, 'PATCH', BASE, [
      { key: REFRESH, value: 30 },
      { key: TTL, value: 0 },
      { key: 'no.such_setting', value: 1 },
      { key: REFRESH, value: 40 },
    ]);
    expectValidationError(wrong, ['body.1.value', 'body.2.key', 'body.3.key']);
    expect((await client(server.url).GET('/system/configurations')).data!.items.every((i) => i.source === 'default')).toBe(true);

    const both = await json(server.url, 'PATCH', BASE, [
      { key: REFRESH, value: 30 },
      { key: 'log_level', value: 'silent' },
    ]);
    expect(both.status, both.text).toBe(200);
    expect(both.json.items.map((i: { key: string; value: unknown; source: string }) => [i.key, i.value, i.source])).toEqual([
      [REFRESH, 30, 'api'],
      ['log_level', 'silent', 'api'],
    ]);
    expect((await raw(server.url, 'DELETE', `${BASE}/${REFRESH}`)).status).toBe(204);
    expect((await raw(server.url, 'DELETE', `${BASE}/log_level`)).status).toBe(204);
  });

  it('answers 404 for an unknown key and 400 for a value of the wrong type or out of bounds', async () => {
    expectNotFound(await raw(server.url, 'GET', `${BASE}/no.such_setting`));
    expectNotFound(await json(server.url, 'PUT', `${BASE}/no.such_setting`, { key: 'no.such_setting', value: 1 }));
    expectNotFound(await raw(server.url, 'DELETE', `${BASE}/no.such_setting`));
    expect((await raw(server.url, 'GET', `${BASE}/Bad%20Key`)).status).toBe(400);
    for (const value of [0, 3601, 1.5, '60', true, null, [60]])
      expectValidationError(await json(server.url, 'PUT', `${BASE}/${REFRESH}`, { key: REFRESH, value }), ['body.value']);
    expectValidationError(await json(server.url, 'PUT', `${BASE}/log_level`, { key: 'log_level', value: 'loud' }), ['body.value']);
    expectValidationError(await json(server.url, 'PUT', `${BASE}/log_level`, { key: REFRESH, value: 5 }), ['body.key']);
    expectValidationError(await json(server.url, 'PUT', `${BASE}/log_level`, { key: 'log_level' }), ['body.value']);
    expectValidationError(await json(server.url, 'PATCH', BASE, { key: REFRESH, value: 5 }), ['body']);
    expect((await client(server.url).GET('/system/configurations')).data!.items.every((i) => i.source === 'default')).toBe(true);
  });

  it('is for administrators only', async () => {
    const account = await createAccount(server.url, 'settings');
    const user = await createUser(server.url, account, { roles: ['full-control'] });
    expectForbidden(await raw(server.url, 'GET', BASE, { auth: user.auth }), 'getSystemConfig');
    expectForbidden(await raw(server.url, 'GET', `${BASE}/schema`, { auth: user.auth }), 'getSystemConfig');
    expectForbidden(await raw(server.url, 'GET', `${BASE}/${REFRESH}`, { auth: user.auth }), 'getSystemConfig');
    expectForbidden(await json(server.url, 'PUT', `${BASE}/${REFRESH}`, { key: REFRESH, value: 5 }, user.auth), 'updateSystemConfig');
    expectForbidden(await json(server.url, 'PATCH', BASE, [{ key: REFRESH, value: 5 }], user.auth), 'updateSystemConfig');
    expectForbidden(await raw(server.url, 'DELETE', `${BASE}/${REFRESH}`, { auth: user.auth }), 'unsetSystemConfig');
  });

  it('keeps stored values across a restart: the next server on the same database answers and runs by them', async () => {
    const stored = await json(server.url, 'PATCH', BASE, [
      { key: FEEDS, value: '0 0 1 1 *' },
      { key: REFRESH, value: 3600 },
      { key: TTL, value: 120 },
      { key: 'log_level', value: 'fatal' },
    ]);
    expect(stored.status, stored.text).toBe(200);
    // The next node must queue the periodic runs from the stored settings itself.
    for (const kind of ['feed_sync_schedule', 'reports_refresh']) await server.running.services.jobs.dropWaiting(`periodic:${kind}`);
    await server.close();
    server = await startTestServer(env());

    const listed = await client(server.url).GET('/system/configurations');
    expect(listed.data!.items.map((i) => [i.key, i.value, i.source])).toEqual([
      [FEEDS, '0 0 1 1 *', 'api'],
      [REFRESH, 3600, 'api'],
      [TTL, 120, 'api'],
      ['log_level', 'fatal', 'api'],
    ]);
    expect(server.running.services.log.level).toBe('fatal');
    for (const slot of await refreshSlots(server)) expect(slot % 3600_000).toBe(0);
    // The new node queued the scheduled feed sync by the stored schedule: New Year, 00:00 UTC.
    const [newYear] = await waitingSlots(server, 'feed_sync_schedule');
    expect(new Date(newYear!).toISOString()).toMatch(/^\d{4}-01-01T00:00:00\.000Z$/);
    const old = await json(server.url, 'POST', '/v2/ecs-inventory', ecsReport('restart', 5));
    expect(old.status, old.text).toBe(400);
    expect(old.json.message).toContain('inventory.ttl_seconds=120');

    for (const key of [FEEDS, REFRESH, TTL, 'log_level']) expect((await raw(server.url, 'DELETE', `${BASE}/${key}`)).status).toBe(204);
    expect(server.running.services.log.level).toBe('silent');
  });
});
