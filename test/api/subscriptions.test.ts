import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollWatches } from '../../src/images/watch.js';
import { waitForAnalysis } from '../support/analysis.js';
import { client, json, raw } from '../support/http.js';
import { expectValidationError } from '../support/fixtures.js';
import { buildImage, type BuiltImage } from '../support/image-builder.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { missingTools } from '../support/tools.js';

let server: TestServer;
let registry: TestRegistry;

async function push(repo: string, tag: string, marker: string): Promise<BuiltImage> {
  const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.0\n' }, { path: 'marker', content: marker }]] });
  await pushImage(registry.url, repo, tag, image);
  return image;
}

/** One watch sweep, as the scheduler would run it (the timer is off in these tests). */
const sweep = () => pollWatches(server.running.services, 300);

beforeAll(async () => {
  [server, registry] = await Promise.all([startTestServer({ VIGIL_WATCH_INTERVAL_SECONDS: '0' }), startRegistry()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), registry?.close()]);
});

describe.skipIf(missingTools('docker-registry'))('subscriptions', () => {
  it('creates, lists, gets, updates and deletes a subscription with normalised keys', async () => {
    const c = client(server.url);
    const created = await c.POST('/subscriptions', { body: { subscription_key: 'nginx', subscription_type: 'analysis_update' } });
    // Every answer about subscriptions is a bare array, as the established API's SubscriptionList; a single one is a list of one.
    expect(created.data).toEqual([expect.objectContaining({ subscription_key: 'docker.io/library/nginx:latest', subscription_type: 'analysis_update', active: true, account_name: 'admin' })]);
    const id = created.data![0].subscription_id;
    const dup = await json(server.url, 'POST', '/v2/subscriptions', { subscription_key: 'docker.io/library/nginx:latest', subscription_type: 'analysis_update' });
    expect(dup.status).toBe(409);
    const listed = await c.GET('/subscriptions', { params: { query: { subscription_key: 'nginx:latest' } } });
    expect(listed.data?.map((s) => s.subscription_id)).toEqual([id]);
    const updated = await c.PUT('/subscriptions/{subscription_id}', { params: { path: { subscription_id: id } }, body: { active: false } });
    expect(updated.data).toEqual([expect.objectContaining({ subscription_id: id, active: false })]);
    expect((await c.GET('/subscriptions/{subscription_id}', { params: { path: { subscription_id: id } } })).data).toEqual([expect.objectContaining({ subscription_id: id, active: false })]);
    expect((await raw(server.url, 'DELETE', `/v2/subscriptions/${id}`)).status).toBe(204);
    expect((await raw(server.url, 'GET', `/v2/subscriptions/${id}`)).status).toBe(404);
  });

  it.each([
    [{ subscription_key: 'x' }, 'body.subscription_type'],
    [{ subscription_type: 'tag_update' }, 'body.subscription_key'],
    [{ subscription_key: 'x', subscription_type: 'sometimes' }, 'body.subscription_type'],
  ])('rejects %j', async (body, location) => {
    const res = await json(server.url, 'POST', '/v2/subscriptions', body);
    expect(res.status).toBe(400);
    expect(res.json.detail.errors.map((e: { location: string }) => e.location)).toContain(location);
  });

  // The update wrote every body property as a column: another account, key or id could be set (found by the spec fuzz test).
  it('changes only active and subscription_value; other properties of an update are ignored', async () => {
    const created = await client(server.url).POST('/subscriptions', { body: { subscription_key: 'registry.example.com/mass/assign:1', subscription_type: 'policy_eval' } });
    const id = created.data![0].subscription_id;
    const moved = await json(server.url, 'PUT', `/v2/subscriptions/${id}`, { active: false, account_name: 'someone-else', subscription_key: 'registry.example.com/other:2' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json).toEqual([expect.objectContaining({ subscription_id: id, account_name: 'admin', subscription_key: 'registry.example.com/mass/assign:1', active: false })]);
    const unknown = await json(server.url, 'PUT', `/v2/subscriptions/${id}`, { subscription_value: 'v', no_such_column: 1 });
    expect(unknown.status, unknown.text).toBe(200);
    expect(unknown.json).toEqual([expect.objectContaining({ subscription_id: id, subscription_value: 'v', active: false })]);
  });

  // The established API's SubscriptionRequest and SubscriptionUpdate declare subscription_value nullable; clients send null.
  it('takes subscription_value: null on create and update, and answers the value as null when there is none', async () => {
    const created = await json(server.url, 'POST', '/v2/subscriptions', { subscription_key: 'registry.example.com/nullable/app:1', subscription_type: 'vuln_update', subscription_value: null });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual([expect.objectContaining({ subscription_key: 'registry.example.com/nullable/app:1', subscription_value: null })]);
    const id = created.json[0].subscription_id;
    const set = await json(server.url, 'PUT', `/v2/subscriptions/${id}`, { subscription_value: 'something' });
    expect(set.status, set.text).toBe(200);
    expect(set.json[0].subscription_value).toBe('something');
    const cleared = await json(server.url, 'PUT', `/v2/subscriptions/${id}`, { subscription_value: null, active: false });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.json).toEqual([expect.objectContaining({ subscription_id: id, subscription_value: null, active: false })]);
    const got = await raw(server.url, 'GET', `/v2/subscriptions/${id}`);
    expect(got.json).toEqual(cleared.json);
    expectValidationError(await json(server.url, 'POST', '/v2/subscriptions', { subscription_key: 'registry.example.com/nullable/app:2', subscription_type: 'vuln_update', subscription_value: 5 }), ['body.subscription_value']);
  });

  it('rejects digests as keys and malformed ids', async () => {
    const res = await json(server.url, 'POST', '/v2/subscriptions', { subscription_key: `nginx@sha256:${'a'.repeat(64)}`, subscription_type: 'tag_update' });
    expect(res.status).toBe(400);
    expect((await raw(server.url, 'GET', '/v2/subscriptions/not-a-uuid')).status).toBe(400);
    expect((await json(server.url, 'PUT', `/v2/subscriptions/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`, {})).status).toBe(400);
  });
});

describe.skipIf(missingTools('docker-registry'))('watched tags and repositories', () => {
  it('analyzes the new digest of a watched tag', async () => {
    const first = await push('watch/app', 'stable', 'one');
    const key = `${registry.host}/watch/app:stable`;
    await client(server.url).POST('/subscriptions', { body: { subscription_key: key, subscription_type: 'tag_update' } });
    let summary = await sweep();
    expect(summary.imagesAdded).toEqual([`${key}@${first.manifestDigest}`]);
    expect(await waitForAnalysis(server, 'admin', first.manifestDigest)).toBe('analyzed');

    // Nothing new: a sweep within the interval does not even look.
    summary = await sweep();
    expect(summary.tagsChecked).toBe(0);

    const second = await push('watch/app', 'stable', 'two');
    await server.running.services.db('subscriptions').update({ last_checked_at: '2000-01-01T00:00:00.000Z' });
    summary = await sweep();
    expect(summary.imagesAdded).toEqual([`${key}@${second.manifestDigest}`]);
    expect(await waitForAnalysis(server, 'admin', second.manifestDigest)).toBe('analyzed');
    const moved = await client(server.url).GET('/events', { params: { query: { event_type: 'user.checks.tag.update', resource_id: key } } });
    expect(moved.data?.results).toHaveLength(1);
  });

  it('watches a repository: existing tags now, new tags on a later sweep', async () => {
    const a = await push('watch/repo', 'a', 'a');
    const res = await raw(server.url, 'POST', `/v2/repositories?repository=${registry.host}/watch/repo`);
    expect(res.status).toBe(200);
    const watched = res.json as { subscription_type: string; subscription_key: string }[];
    expect(watched.map((i) => `${i.subscription_type} ${i.subscription_key}`)).toEqual([
      `repo_update ${registry.host}/watch/repo`,
      `tag_update ${registry.host}/watch/repo:a`,
    ]);
    let summary = await sweep();
    expect(summary.imagesAdded).toEqual([`${registry.host}/watch/repo:a@${a.manifestDigest}`]);

    const b = await push('watch/repo', 'b', 'b');
    await server.running.services.db('subscriptions').where({ subscription_type: 'repo_update' }).update({ last_checked_at: '2000-01-01T00:00:00.000Z' });
    summary = await sweep();
    expect(summary.reposChecked).toBe(1);
    expect(summary.imagesAdded).toEqual([`${registry.host}/watch/repo:b@${b.manifestDigest}`]);
    await waitForAnalysis(server, 'admin', b.manifestDigest);
  });

  it('previews a repository watch with dry_run and stores nothing', async () => {
    await push('watch/dry', 'x', 'x');
    const res = await raw(server.url, 'POST', `/v2/repositories?repository=${registry.host}/watch/dry&dry_run=true`);
    expect(res.status).toBe(200);
    expect(res.json).toHaveLength(2);
    const stored = await client(server.url).GET('/subscriptions', { params: { query: { subscription_type: 'repo_update' } } });
    expect(stored.data?.map((s) => s.subscription_key)).not.toContain(`${registry.host}/watch/dry`);
  });

  it('refuses tags and unknown repositories', async () => {
    expect((await raw(server.url, 'POST', `/v2/repositories?repository=${registry.host}/watch/repo:a`)).status).toBe(400);
    expect((await raw(server.url, 'POST', '/v2/repositories')).status).toBe(400);
    const unknown = await raw(server.url, 'POST', `/v2/repositories?repository=${registry.host}/no/such`);
    expect(unknown.status).toBe(404);
  });
});

describe.skipIf(missingTools('docker-registry'))('summaries and the package query', () => {
  it('summarises tags and counts images', async () => {
    const c = client(server.url);
    const tags = await c.GET('/summaries/image-tags', { params: { query: { repository: 'watch/app' } } });
    expect(tags.data?.items).toHaveLength(1);
    expect(tags.data?.items[0]).toMatchObject({ current: true, analysis_status: 'analyzed' });
    expect(typeof tags.data?.items[0].tag_detected_at).toBe('number');
    const history = await c.GET('/summaries/image-tags', { params: { query: { repository: 'watch/app', current_only: false } } });
    expect(history.data?.total_rows).toBe(2);
    const page = await c.GET('/summaries/image-tags', { params: { query: { current_only: false, limit: 1, page: 2 } } });
    expect(page.data?.items).toHaveLength(1);
    const counts = await c.GET('/summaries/image-counts');
    expect(counts.data).toMatchObject({ failed: 0 });
    expect(counts.data!.images).toBeGreaterThanOrEqual(4);
    expect(counts.data!.analyzed + counts.data!.analyzing + counts.data!.pending).toBe(counts.data!.images);
  });

  it('finds images by package and pages through them', async () => {
    const apkDb = 'P:musl\nV:1.2.4-r4\nA:x86_64\nL:MIT\no:musl\n\nP:zlib\nV:1.3.1-r0\nA:x86_64\nL:Zlib\no:zlib\n\n';
    const digests: string[] = [];
    for (const tag of ['p1', 'p2']) {
      const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.0\n' }, { path: 'lib/apk/db/installed', content: apkDb }, { path: 'tag', content: tag }]] });
      await pushImage(registry.url, 'query/app', tag, image);
      await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${registry.host}/query/app:${tag}` } } });
      expect(await waitForAnalysis(server, 'admin', image.manifestDigest)).toBe('analyzed');
      digests.push(image.manifestDigest);
    }
    const c = client(server.url);
    const first = await c.GET('/query/images/by-package', { params: { query: { name: 'musl', package_type: 'apk', limit: 1 } } });
    expect(first.data).toMatchObject({ page: '1', next_page: '2', returned_count: 1 });
    const second = await c.GET('/query/images/by-package', { params: { query: { name: 'musl', package_type: 'apk', limit: 1, page: 2 } } });
    expect(second.data).toMatchObject({ page: '2', next_page: '', returned_count: 1 });
    const seen = [...first.data!.images, ...second.data!.images];
    expect(seen.map((i) => i.image_digest).sort()).toEqual([...digests].sort());
    expect(seen[0].packages).toEqual([expect.objectContaining({ name: 'musl', version: '1.2.4-r4', type: 'apk', location: '/lib/apk/db/installed' })]);
    expect(seen[0].tags[0]).toMatch(new RegExp(`^${registry.host}/query/app:p[12]$`));
    const wrongVersion = await c.GET('/query/images/by-package', { params: { query: { name: 'musl', version: '0.0.1' } } });
    expect(wrongVersion.data?.returned_count).toBe(0);
    const none = await client(server.url).GET('/query/images/by-package', { params: { query: { name: 'left-pad' } } });
    expect(none.data).toMatchObject({ returned_count: 0, next_page: '', page: '1' });
    expect((await raw(server.url, 'GET', '/v2/query/images/by-package')).status).toBe(400);
    expect((await raw(server.url, 'GET', '/v2/query/images/by-package?name=x&package_type=cargo')).status).toBe(400);
  });
});
