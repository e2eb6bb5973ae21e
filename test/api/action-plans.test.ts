/**
 * Action (remediation) plans: recorded for an image of the account (by digest, or by a tag resolved to its
 * digest), listed newest first with the upstream filters, refused for images, policies and endpoint
 * configurations the account does not have, and kept apart per account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { expectValidationError, ISO_UTC } from '../support/fixtures.js';
import { client, json, raw, type Auth } from '../support/http.js';
import { dockerArchiveTar } from '../support/image-builder.js';
import { createAccount, createUser, expectError, expectForbidden, expectNotFound } from '../support/rbac-fixtures.js';
import { alpineImage, waitForJobsSettled } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let digest: string;
let policyId: string;
const TAG = 'example.com/plans/app:1';
const OTHER_DIGEST = `sha256:${'e'.repeat(64)}`;

async function uploadImage(marker: string, tag: string, as?: Auth): Promise<string> {
  const res = await raw(server.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(await alpineImage(marker), { repoTags: [tag] }),
    ...(as ? { auth: as } : {}),
  });
  expect(res.status, res.text).toBe(200);
  return res.json.image_digest as string;
}

beforeAll(async () => {
  server = await startTestServer();
  digest = await uploadImage('action-plans', TAG);
  await waitForAnalysis(server, 'admin', digest);
  await waitForJobsSettled(server, 'admin');
  const policies = await client(server.url).GET('/policies');
  policyId = policies.data!.find((p) => p.active)!.policy_id!;
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('action plans', () => {
  it('records a plan for an image by digest and lists it with upstream fields', async () => {
    const plan = {
      type: 'remediation',
      image_digest: digest,
      image_tag: TAG,
      policy_id: policyId,
      resolutions: [{ trigger_ids: ['41cb7cdf04850e33a11f80c42bf660b3', '8a3b1b0f0d0b4c4e9c0b3e1e0c0a0b0c'], content: 'upgrade musl to 1.2.5' }],
      subject: 'Fix musl',
      message: 'Rebuild on alpine 3.20',
    };
    const created = await client(server.url).POST('/actions', { body: plan });
    expect(created.response.status).toBe(200);
    expect(created.data).toEqual({ ...plan, uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), created_at: expect.stringMatching(ISO_UTC), last_updated: expect.stringMatching(ISO_UTC) });

    const listed = await client(server.url).GET('/actions');
    expect(listed.data).toEqual([created.data]);
    const byDigest = await client(server.url).GET('/actions', { params: { query: { image_digest: digest } } });
    expect(byDigest.data?.map((p) => p.uuid)).toEqual([created.data!.uuid]);
    const otherDigest = await client(server.url).GET('/actions', { params: { query: { image_digest: OTHER_DIGEST } } });
    expect(otherDigest.data).toEqual([]);
  });

  it('resolves a tag to the digest it names, matches tags as normalised, filters by creation time, newest first', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const byTag = await json(server.url, 'POST', '/v2/actions', { image_tag: TAG, subject: 'by tag' });
    expect(byTag.status, byTag.text).toBe(200);
    expect(byTag.json).toMatchObject({ image_digest: digest, image_tag: TAG, subject: 'by tag', resolutions: [] });

    const all = await client(server.url).GET('/actions', { params: { query: { image_tag: TAG } } });
    expect(all.data!.length).toBeGreaterThanOrEqual(2);
    expect(all.data![0].uuid).toBe(byTag.json.uuid);
    const recent = await client(server.url).GET('/actions', { params: { query: { created_after: before } } });
    expect(recent.data?.map((p) => p.uuid)).toContain(byTag.json.uuid);
    const future = await client(server.url).GET('/actions', { params: { query: { created_after: new Date(Date.now() + 60_000).toISOString() } } });
    expect(future.data).toEqual([]);
  });

  it('refuses plans for images, tags, policies and endpoint configurations the account does not have', async () => {
    expectNotFound(await json(server.url, 'POST', '/v2/actions', { image_digest: OTHER_DIGEST }));
    expectNotFound(await json(server.url, 'POST', '/v2/actions', { image_tag: 'example.com/plans/app:never' }));
    expectNotFound(await json(server.url, 'POST', '/v2/actions', { image_digest: digest, policy_id: 'no-such-policy' }));
    expectNotFound(await json(server.url, 'POST', '/v2/actions', { image_digest: digest, endpoint: 'webhook', configuration_id: '00000000-0000-4000-8000-000000000000' }));
    const before = (await client(server.url).GET('/actions')).data!.length;

    expectValidationError(await json(server.url, 'POST', '/v2/actions', { subject: 'no image' }), ['body.image_digest']);
    expectValidationError(await json(server.url, 'POST', '/v2/actions', { image_digest: digest, image_tag: 'example.com/plans/app:other' }), ['body.image_tag']);
    expectValidationError(await json(server.url, 'POST', '/v2/actions', { image_digest: 'sha256:short' }), ['body.image_digest']);
    expectValidationError(await json(server.url, 'POST', '/v2/actions', { image_digest: digest, endpoint: 'carrier-pigeon' }), ['body.endpoint']);
    expectValidationError(await json(server.url, 'POST', '/v2/actions', { image_digest: digest, configuration_id: 'x' }), ['body.endpoint']);
    expectValidationError(await json(server.url, 'POST', '/v2/actions', { image_digest: digest, resolutions: [{ trigger_ids: 'not-a-list' }] }), ['body.resolutions.0.trigger_ids']);
    expectValidationError(await json(server.url, 'POST', '/v2/actions', { image_digest: digest, subject: 'x'.repeat(1025) }), ['body.subject']);
    expectError(await raw(server.url, 'GET', '/v2/actions?created_after=yesterday'), 400, 'validation_error');
    expect((await client(server.url).GET('/actions')).data!.length).toBe(before);
  });

  it('keeps each account to its own plans and images, and needs the actions permissions', async () => {
    const account = await createAccount(server.url, 'plans');
    const writer = await createUser(server.url, account, { roles: ['read-write'] });
    const reader = await createUser(server.url, account, { roles: ['read-only'] });
    // The admin account's image is not this account's.
    expectNotFound(await json(server.url, 'POST', '/v2/actions', { image_digest: digest }, writer.auth));
    const own = await uploadImage('action-plans-other', 'example.com/plans/other:1', writer.auth);
    await waitForAnalysis(server, account, own);
    await waitForJobsSettled(server, account);
    const created = await json(server.url, 'POST', '/v2/actions', { image_digest: own, subject: 'theirs' }, writer.auth);
    expect(created.status, created.text).toBe(200);

    const theirs = await raw(server.url, 'GET', '/v2/actions', { auth: reader.auth });
    expect(theirs.json.map((p: { uuid: string }) => p.uuid)).toEqual([created.json.uuid]);
    expect((await client(server.url).GET('/actions')).data!.map((p) => p.uuid)).not.toContain(created.json.uuid);
    const asAdmin = await raw(server.url, 'GET', '/v2/actions', { headers: { 'x-anchore-account': account } });
    expect(asAdmin.json.map((p: { uuid: string }) => p.uuid)).toEqual([created.json.uuid]);

    expectForbidden(await json(server.url, 'POST', '/v2/actions', { image_digest: own }, reader.auth), 'addAction');
    const outsider = await createUser(server.url, await createAccount(server.url, 'plans-none'));
    expectForbidden(await raw(server.url, 'GET', '/v2/actions', { auth: outsider.auth }), 'getActions');
  });
});
