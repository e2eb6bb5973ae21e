/**
 * Events produced by real actions (archive uploads that analyze or fail, failed registry lookups): listing with
 * every filter, paging, single events, bulk deletion, the catalogue of event types, bad inputs, and isolation
 * between accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO_UTC, expectError, expectValidationError } from '../support/fixtures.js';
import { adminAuth, client, json, raw, type Auth } from '../support/http.js';
import type { BuiltImage } from '../support/image-builder.js';
import { createAccount, createUser, type TestUser } from '../support/rbac-fixtures.js';
import { SA, alpineImage, analysisSettled, hostileImage, uploadArchive } from '../support/registry-fixtures.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

interface EventItem {
  generated_uuid: string;
  created_at: string;
  event: {
    type: string;
    level: 'INFO' | 'ERROR';
    message: string;
    details?: Record<string, unknown>;
    timestamp: string;
    resource: { type: string; id: string; account_name: string };
    source: { service_name?: string; host_id?: string };
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: TestServer;
let registry: TestRegistry;
let url: string;

let imgA: BuiltImage;
let imgB: BuiltImage;
let evil: BuiltImage;
/** Digests of the uploads (a docker save archive's manifest is synthesised, so not the built manifest's). */
let dA: string;
let dB: string;
let dEvil: string;
let missingRef: string;
const unreachableRef = '127.0.0.1:1/events/app:1';
/** Every event of the admin account after the setup, newest first. */
let ALL: EventItem[];

async function list(query: Record<string, string | number> = {}, auth: Auth = adminAuth, headers: Record<string, string> = {}) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await raw(url, 'GET', `/v2/events${qs ? `?${qs}` : ''}`, { auth, headers });
  expect(res.status, res.text).toBe(200);
  expect(res.json.item_count).toBe(res.json.results.length);
  return res.json as { results: EventItem[]; next_page: boolean; item_count: number; page: number };
}

async function bulkDelete(query: Record<string, string> = {}, auth: Auth = adminAuth): Promise<string[]> {
  const qs = new URLSearchParams(query).toString();
  const res = await raw(url, 'DELETE', `/v2/events${qs ? `?${qs}` : ''}`, { auth });
  expect(res.status, res.text).toBe(200);
  return res.json as string[];
}

const ids = (events: EventItem[]) => events.map((e) => e.generated_uuid);
const sorted = (values: string[]) => [...values].sort();

/** `ts` written with a +02:00 offset: the same instant. */
function withOffset(ts: string): string {
  const shifted = new Date(Date.parse(ts) + 2 * 3600_000).toISOString();
  return `${shifted.slice(0, 23)}+02:00`;
}

async function addByTag(pullString: string, auth: Auth = adminAuth) {
  return json(url, 'POST', '/v2/images', { source: { tag: { pull_string: pullString } } }, auth);
}

beforeAll(async () => {
  [server, registry] = await Promise.all([startTestServer(), startRegistry()]);
  url = server.url;
  [imgA, imgB, evil] = await Promise.all([alpineImage('events-a'), alpineImage('events-b'), hostileImage('events-evil')]);
  const digests: string[] = [];
  for (const [image, tag] of [
    [imgA, 'example.com/events/app:a'],
    [imgB, 'example.com/events/app:b'],
    [evil, 'example.com/events/evil:1'],
  ] as const) {
    const res = await uploadArchive(url, image, tag);
    expect(res.status, res.text).toBe(200);
    digests.push(res.json.image_digest);
    await analysisSettled(server, 'admin', res.json.image_digest);
  }
  [dA, dB, dEvil] = digests;
  missingRef = `${registry.host}/events/missing:nope`;
  expectError(await addByTag(missingRef), 404, 'manifest_unknown');
  expectError(await addByTag(unreachableRef), 502, 'registry_unreachable');
  ALL = (await list({ limit: 1000 })).results;
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), registry?.close()]);
});

describe.skipIf(missingTools('docker-registry'))('listing events', () => {
  it('records what happened, newest first, in the documented shape', async () => {
    expect(await analysisSettled(server, 'admin', dA)).toBe('analyzed');
    expect(await analysisSettled(server, 'admin', dEvil)).toBe('analysis_failed');
    expect(sorted(ALL.map((e) => `${e.event.type} ${e.event.resource.id}`))).toEqual(
      sorted([
        `user.image.analysis.started ${dA}`,
        `user.image.analysis.completed ${dA}`,
        `user.image.analysis.started ${dB}`,
        `user.image.analysis.completed ${dB}`,
        `user.image.analysis.started ${dEvil}`,
        `user.image.analysis.failed ${dEvil}`,
        `system.image_analysis.registry_lookup_failed ${missingRef}`,
        `system.image_analysis.registry_lookup_failed ${unreachableRef}`,
      ]),
    );
    const stamps = ALL.map((e) => e.event.timestamp);
    expect(stamps).toEqual([...stamps].sort().reverse());
    expect(new Set(ids(ALL)).size).toBe(ALL.length);
    for (const e of ALL) {
      expect(e.generated_uuid).toMatch(UUID);
      expect(e.created_at).toMatch(ISO_UTC);
      expect(e.event.timestamp).toBe(e.created_at);
      expect(e.event.resource.account_name).toBe('admin');
      expect(e.event.source.service_name).toBe('vigil');
      expect(e.event.message).toMatch(/\S/);
      expect(e.event.resource.type).toBe(e.event.type.startsWith('system.') ? 'image_reference' : 'image_digest');
    }
    const failed = ALL.find((e) => e.event.type === 'user.image.analysis.failed')!;
    expect(failed.event).toMatchObject({ level: 'ERROR', details: { reason: expect.stringMatching(/\.\./) } });
    const lookup = ALL.find((e) => e.event.resource.id === missingRef)!;
    expect(lookup.event.level).toBe('ERROR');
    expect(lookup.event.message).toContain(missingRef);

    const whole = await list();
    expect(whole).toMatchObject({ page: 1, next_page: false, item_count: ALL.length });
    expect(whole.results).toEqual(ALL);
  });

  it('filters by exact event type', async () => {
    const res = await list({ event_type: 'user.image.analysis.completed' });
    expect(sorted(res.results.map((e) => e.event.resource.id))).toEqual(sorted([dA, dB]));
    expect((await list({ event_type: 'system.image_analysis.registry_lookup_failed' })).results).toHaveLength(2);
    // Without the trailing dot a type is matched exactly, not as a prefix.
    expect((await list({ event_type: 'user.image' })).results).toEqual([]);
    expect((await list({ event_type: 'user.image.analysis.complete' })).results).toEqual([]);
  });

  it('filters by a prefix ending in a dot', async () => {
    const res = await list({ event_type: 'user.image.' });
    expect(ids(res.results)).toEqual(ids(ALL.filter((e) => e.event.type.startsWith('user.image.'))));
    expect(res.results).toHaveLength(6);
    expect((await list({ event_type: 'system.' })).results).toHaveLength(2);
    expect((await list({ event_type: 'user.checks.' })).results).toEqual([]);
  });

  it('filters by a pattern with *', async () => {
    expect(ids((await list({ event_type: '*' })).results)).toEqual(ids(ALL));
    expect((await list({ event_type: 'user.*.failed' })).results.map((e) => e.event.resource.id)).toEqual([dEvil]);
    expect((await list({ event_type: '*.completed' })).results).toHaveLength(2);
    expect((await list({ event_type: 'user.image.analysis.*' })).results).toHaveLength(6);
    expect((await list({ event_type: 'system.image_analysis.*' })).results).toHaveLength(2);
    expect((await list({ event_type: '*lookup*' })).results).toHaveLength(2);
    expect((await list({ event_type: 'nothing.*' })).results).toEqual([]);
  });

  it('treats _ in a pattern literally, not as a single-character wildcard', async () => {
    expect((await list({ event_type: 'user_image.*' })).results).toEqual([]);
    expect((await list({ event_type: 'system.image_analysis.registry_lookup_failed' })).results).toHaveLength(2);
    expect((await list({ event_type: 'system.image-analysis.*' })).results).toEqual([]);
  });

  it('filters by resource type and resource id', async () => {
    expect(sorted((await list({ resource_type: 'image_reference' })).results.map((e) => e.event.resource.id))).toEqual(
      sorted([missingRef, unreachableRef]),
    );
    expect((await list({ resource_type: 'image_digest' })).results).toHaveLength(6);
    expect((await list({ resource_type: 'no_such_type' })).results).toEqual([]);
    const forA = await list({ resource_id: dA });
    expect(sorted(forA.results.map((e) => e.event.type))).toEqual(['user.image.analysis.completed', 'user.image.analysis.started']);
    expect((await list({ resource_id: missingRef })).results.map((e) => e.event.type)).toEqual(['system.image_analysis.registry_lookup_failed']);
    expect((await list({ resource_id: `sha256:${'0'.repeat(64)}` })).results).toEqual([]);
  });

  it('filters by level', async () => {
    const errors = await list({ level: 'ERROR' });
    expect(ids(errors.results)).toEqual(ids(ALL.filter((e) => e.event.level === 'ERROR')));
    expect(errors.results).toHaveLength(3);
    const infos = await list({ level: 'INFO' });
    expect(ids(infos.results)).toEqual(ids(ALL.filter((e) => e.event.level === 'INFO')));
    expect(infos.results).toHaveLength(5);
  });

  it('filters by time: since is inclusive, before exclusive, offsets honoured', async () => {
    const t = ALL[Math.floor(ALL.length / 2)].event.timestamp;
    const atOrAfter = ids(ALL.filter((e) => e.event.timestamp >= t));
    const earlier = ids(ALL.filter((e) => e.event.timestamp < t));
    expect(ids((await list({ since: t })).results)).toEqual(atOrAfter);
    expect(ids((await list({ before: t })).results)).toEqual(earlier);
    expect(ids((await list({ since: withOffset(t) })).results)).toEqual(atOrAfter);
    expect(ids((await list({ before: withOffset(t) })).results)).toEqual(earlier);

    const oldest = ALL.at(-1)!.event.timestamp;
    const newest = ALL[0].event.timestamp;
    expect(ids((await list({ since: oldest, before: newest })).results)).toEqual(
      ids(ALL.filter((e) => e.event.timestamp >= oldest && e.event.timestamp < newest)),
    );
    expect((await list({ since: '2999-01-01T00:00:00Z' })).results).toEqual([]);
    expect((await list({ before: '2000-01-01T00:00:00Z' })).results).toEqual([]);
    expect((await list({ since: newest, before: oldest })).results).toEqual([]);
  });

  it('combines filters', async () => {
    expect((await list({ event_type: 'user.image.', level: 'ERROR' })).results.map((e) => e.event.type)).toEqual(['user.image.analysis.failed']);
    expect((await list({ event_type: 'user.*', resource_id: dB, level: 'INFO' })).results).toHaveLength(2);
    expect((await list({ resource_type: 'image_reference', level: 'INFO' })).results).toEqual([]);
    expect((await list({ event_type: '*', since: ALL[0].event.timestamp, resource_id: ALL[0].event.resource.id })).results[0]).toEqual(ALL[0]);
  });
});

describe.skipIf(missingTools('docker-registry'))('paging', () => {
  it('pages with page and limit; next_page says whether more follow', async () => {
    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push(await list({ page, limit: 3 }));
    expect(pages.map((p) => [p.page, p.item_count, p.next_page])).toEqual([
      [1, 3, true],
      [2, 3, true],
      [3, 2, false],
    ]);
    expect(pages.flatMap((p) => ids(p.results))).toEqual(ids(ALL));
    expect(await list({ page: 4, limit: 3 })).toEqual({ results: [], next_page: false, item_count: 0, page: 4 });
  });

  it('says there is no next page when the last page is exactly full', async () => {
    const full = await list({ limit: ALL.length });
    expect(full).toMatchObject({ next_page: false, item_count: ALL.length });
    const short = await list({ limit: ALL.length - 1 });
    expect(short).toMatchObject({ next_page: true, item_count: ALL.length - 1 });
  });

  it('pages within a filter', async () => {
    const first = await list({ event_type: 'user.image.', limit: 4 });
    const second = await list({ event_type: 'user.image.', limit: 4, page: 2 });
    expect([first.next_page, first.item_count, second.next_page, second.item_count]).toEqual([true, 4, false, 2]);
    expect([...ids(first.results), ...ids(second.results)]).toEqual(ids(ALL.filter((e) => e.event.type.startsWith('user.image.'))));
  });

  it('accepts the limit bounds 1 and 1000', async () => {
    expect((await list({ limit: 1 })).results).toEqual([ALL[0]]);
    expect((await list({ limit: 1000 })).results).toEqual(ALL);
  });
});

describe.skipIf(missingTools('docker-registry'))('single events', () => {
  it('gets an event by id', async () => {
    for (const e of [ALL[0], ALL.at(-1)!]) {
      const { data, response } = await client(url).GET('/events/{event_id}', { params: { path: { event_id: e.generated_uuid } } });
      expect(response.status).toBe(200);
      expect(data).toEqual(e);
    }
  });

  it('deletes one event; it is then gone', async () => {
    const victim = ALL.find((e) => e.event.resource.id === unreachableRef)!;
    const del = await raw(url, 'DELETE', `/v2/events/${victim.generated_uuid}`);
    expect(del.status, del.text).toBe(200);
    expectError(await raw(url, 'GET', `/v2/events/${victim.generated_uuid}`), 404, 'not_found');
    expectError(await raw(url, 'DELETE', `/v2/events/${victim.generated_uuid}`), 404, 'not_found');
    expect(ids((await list({ limit: 1000 })).results)).toEqual(ids(ALL).filter((id) => id !== victim.generated_uuid));
    ALL = ALL.filter((e) => e !== victim);
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectError(await raw(url, 'GET', `/v2/events/${unknown}`), 404, 'not_found');
    expectError(await raw(url, 'DELETE', `/v2/events/${unknown}`), 404, 'not_found');
    for (const bad of ['not-a-uuid', `${ALL[0].generated_uuid}0`, ALL[0].generated_uuid.toUpperCase(), 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz']) {
      expectValidationError(await raw(url, 'GET', `/v2/events/${bad}`), ['path.event_id']);
      expectValidationError(await raw(url, 'DELETE', `/v2/events/${bad}`), ['path.event_id']);
    }
    expect((await list({ limit: 1000 })).results).toHaveLength(ALL.length);
  });
});

describe.skipIf(missingTools('docker-registry'))('deleting events in bulk', () => {
  let account: string;
  let owner: TestUser;
  let mine: EventItem[];

  beforeAll(async () => {
    account = await createAccount(url, 'ev-del');
    owner = await createUser(url, account, { roles: ['full-control'] });
    for (const [image, tag] of [
      [imgA, 'example.com/del/app:a'],
      [imgB, 'example.com/del/app:b'],
    ] as const) {
      const res = await uploadArchive(url, image, tag, { auth: owner.auth });
      expect(res.status, res.text).toBe(200);
      expect(await analysisSettled(server, account, res.json.image_digest)).toBe('analyzed');
    }
    expectError(await addByTag(`${registry.host}/del/missing:1`, owner.auth), 404, 'manifest_unknown');
    mine = (await list({ limit: 1000 }, owner.auth)).results;
    expect(mine).toHaveLength(5);
  });

  it('deletes by level and answers the deleted ids', async () => {
    const deleted = await bulkDelete({ level: 'ERROR' }, owner.auth);
    expect(deleted).toEqual(ids(mine.filter((e) => e.event.level === 'ERROR')));
    expect(deleted).toHaveLength(1);
    mine = mine.filter((e) => !deleted.includes(e.generated_uuid));
    expect(ids((await list({ limit: 1000 }, owner.auth)).results)).toEqual(ids(mine));
    expect(await bulkDelete({ level: 'ERROR' }, owner.auth)).toEqual([]);
  });

  it('deletes what happened before a time, and within a window', async () => {
    const t = mine[1].event.timestamp;
    const expected = ids(mine.filter((e) => e.event.timestamp < t));
    expect(expected.length).toBeGreaterThan(0);
    const deleted = await bulkDelete({ before: t }, owner.auth);
    expect(sorted(deleted)).toEqual(sorted(expected));
    mine = mine.filter((e) => !deleted.includes(e.generated_uuid));
    expect(ids((await list({ limit: 1000 }, owner.auth)).results)).toEqual(ids(mine));

    const newest = mine[0].event.timestamp;
    const window = await bulkDelete({ since: newest, before: '2999-01-01T00:00:00Z', level: 'INFO' }, owner.auth);
    expect(sorted(window)).toEqual(sorted(ids(mine.filter((e) => e.event.timestamp >= newest))));
    mine = mine.filter((e) => !window.includes(e.generated_uuid));
  });

  it('deletes everything without filters, and leaves other accounts alone', async () => {
    const adminBefore = await list({ limit: 1000 });
    const rest = await bulkDelete({}, owner.auth);
    expect(sorted(rest)).toEqual(sorted(ids(mine)));
    expect((await list({}, owner.auth)).results).toEqual([]);
    expect(await bulkDelete({}, owner.auth)).toEqual([]);
    expect(await list({ limit: 1000 })).toEqual(adminBefore);
    expect(adminBefore.results).toHaveLength(ALL.length);
  });
});

describe.skipIf(missingTools('docker-registry'))('event types', () => {
  it('lists the categories with every type the service emits', async () => {
    const { data, response } = await client(url).GET('/event-types');
    expect(response.status).toBe(200);
    const categories = data!;
    expect(categories.map((c) => c.name)).toEqual(expect.arrayContaining(['user.image', 'system.image_analysis']));
    const byType = new Map<string, { name: string; level: string; category: string }>();
    for (const c of categories) {
      expect(c.description).toMatch(/\S/);
      expect(c.types.length).toBeGreaterThan(0);
      for (const t of c.types) {
        expect(t.type.startsWith(`${c.name}.`), `${t.type} in ${c.name}`).toBe(true);
        expect(t.name).toBe(t.type.split('.').pop());
        expect(['INFO', 'ERROR']).toContain(t.level);
        expect(t.message).toMatch(/\S/);
        expect(byType.has(t.type), `${t.type} listed twice`).toBe(false);
        byType.set(t.type, { name: t.name, level: t.level, category: c.name });
      }
    }
    for (const type of ['user.image.analysis.started', 'user.image.analysis.completed', 'user.image.analysis.failed', 'system.image_analysis.registry_lookup_failed'])
      expect(byType.has(type), type).toBe(true);
    // Every event recorded above is of a listed type, at the listed level.
    for (const e of ALL) expect(byType.get(e.event.type)?.level, e.event.type).toBe(e.event.level);
  });

  it('is readable by any role holder of an account', async () => {
    const account = await createAccount(url, 'ev-types');
    const user = await createUser(url, account, { roles: ['read-only'] });
    const res = await raw(url, 'GET', '/v2/event-types', { auth: user.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual((await client(url).GET('/event-types')).data);
  });
});

describe.skipIf(missingTools('docker-registry'))('bad requests', () => {
  it.each([
    ['an upper-case event_type', 'event_type=User.Image.', ['query.event_type']],
    ['an event_type with a space', 'event_type=user%20image', ['query.event_type']],
    ['an event_type with %', 'event_type=user.%25', ['query.event_type']],
    ['an empty event_type', 'event_type=', ['query.event_type']],
    ['an unknown level', 'level=WARN', ['query.level']],
    ['a level outside INFO and ERROR (in any case)', 'level=warning', ['query.level']],
    ['a since that is no date', 'since=yesterday', ['query.since']],
    ['a before without a time zone', 'before=2024-01-01T00:00:00', ['query.before']],
    ['an impossible date', 'since=2024-02-30T00:00:00Z', ['query.since']],
    ['page 0', 'page=0', ['query.page']],
    ['a non-numeric page', 'page=two', ['query.page']],
    ['limit 0', 'limit=0', ['query.limit']],
    ['limit 1001', 'limit=1001', ['query.limit']],
    ['a negative limit', 'limit=-5', ['query.limit']],
    ['a fractional limit', 'limit=2.5', ['query.limit']],
    ['several at once', 'page=0&limit=0&level=x', ['query.page', 'query.limit', 'query.level']],
  ])('rejects a listing with %s', async (_what, qs, locations) => {
    expectValidationError(await raw(url, 'GET', `/v2/events?${qs}`), locations);
  });

  it.each([
    ['an unknown level', 'level=DEBUG', ['query.level']],
    ['a before that is no date', 'before=garbage', ['query.before']],
    ['a since without a time zone', 'since=2024-01-01T00:00:00', ['query.since']],
  ])('rejects a bulk deletion with %s and deletes nothing', async (_what, qs, locations) => {
    expectValidationError(await raw(url, 'DELETE', `/v2/events?${qs}`), locations);
    expect((await list({ limit: 1000 })).results).toHaveLength(ALL.length);
  });
});

describe.skipIf(missingTools('docker-registry'))('isolation between accounts', () => {
  let other: string;
  let stranger: TestUser;

  beforeAll(async () => {
    other = await createAccount(url, 'ev-iso');
    stranger = await createUser(url, other, { roles: ['full-control'] });
  });

  it("shows another account's user none of admin's events, whatever the filter", async () => {
    expect(await list({}, stranger.auth)).toEqual({ results: [], next_page: false, item_count: 0, page: 1 });
    const filters: Record<string, string>[] = [{ event_type: '*' }, { resource_id: dA }, { level: 'ERROR' }, { since: '2000-01-01T00:00:00Z' }, { resource_type: 'image_digest' }];
    for (const query of filters)
      expect((await list(query, stranger.auth)).results).toEqual([]);
  });

  it("answers 404 for admin's event ids and deletes none of them", async () => {
    for (const e of ALL) {
      expectError(await raw(url, 'GET', `/v2/events/${e.generated_uuid}`, { auth: stranger.auth }), 404, 'not_found');
      expectError(await raw(url, 'DELETE', `/v2/events/${e.generated_uuid}`, { auth: stranger.auth }), 404, 'not_found');
    }
    expect(await bulkDelete({}, stranger.auth)).toEqual([]);
    expect(await bulkDelete({ level: 'ERROR' }, stranger.auth)).toEqual([]);
    expect(ids((await list({ limit: 1000 })).results)).toEqual(ids(ALL));
  });

  it('refuses x-service-account naming an account the user holds no role in', async () => {
    const asAdmin = { [SA]: 'admin' };
    expectError(await raw(url, 'GET', '/v2/events', { auth: stranger.auth, headers: asAdmin }), 403, 'forbidden');
    expectError(await raw(url, 'GET', `/v2/events/${ALL[0].generated_uuid}`, { auth: stranger.auth, headers: asAdmin }), 403, 'forbidden');
    expectError(await raw(url, 'DELETE', `/v2/events/${ALL[0].generated_uuid}`, { auth: stranger.auth, headers: asAdmin }), 403, 'forbidden');
    expectError(await raw(url, 'DELETE', '/v2/events', { auth: stranger.auth, headers: asAdmin }), 403, 'forbidden');
    expect(ids((await list({ limit: 1000 })).results)).toEqual(ids(ALL));
  });

  it("keeps the other account's own events to itself; the administrator reads them only with the header", async () => {
    const res = await uploadArchive(url, imgA, 'example.com/iso/app:a', { auth: stranger.auth });
    expect(res.status, res.text).toBe(200);
    expect(await analysisSettled(server, other, dA)).toBe('analyzed');
    const theirs = (await list({}, stranger.auth)).results;
    expect(sorted(theirs.map((e) => e.event.type))).toEqual(['user.image.analysis.completed', 'user.image.analysis.started']);
    for (const e of theirs) expect(e.event.resource).toEqual({ type: 'image_digest', id: dA, account_name: other });

    const adminOwn = await list({ limit: 1000 });
    expect(ids(adminOwn.results)).toEqual(ids(ALL));
    expectError(await raw(url, 'GET', `/v2/events/${theirs[0].generated_uuid}`), 404, 'not_found');
    const viaHeader = await list({}, adminAuth, { [SA]: other });
    expect(viaHeader.results).toEqual(theirs);
    const one = await raw(url, 'GET', `/v2/events/${theirs[0].generated_uuid}`, { headers: { [SA]: other } });
    expect(one.status).toBe(200);
    expect(one.json).toEqual(theirs[0]);
  });
});
