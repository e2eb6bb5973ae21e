/**
 * The GraphQL reporting API over real data: images analyzed from archives, matched against a fixture feed and
 * evaluated with policies, copied into the read model by the refresh. Covers every vulnerability and policy
 * query with each filter, paging, the account/global scopes, transport forms and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithRole, type TestUser } from '../support/auth-fixtures.js';
import { gql, refreshReports, type GqlResponse } from '../support/graphql.js';
import { adminAuth, authHeader, json, raw, type Auth } from '../support/http.js';
import { API, FETCHER, FETCHER_LATEST, startReportServer, type ReportFixture } from '../support/report-fixtures.js';
import type { TestServer } from '../support/server.js';

let fixture: ReportFixture;
let server: TestServer;
let reader: TestUser;
let readerAuth: Auth;
let digests: ReportFixture['digests'];

const check = (digest: string, tag: string, policy?: string) =>
  raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(tag)}${policy ? `&policy_id=${policy}` : ''}`);

beforeAll(async () => {
  fixture = await startReportServer();
  ({ server, reader, readerAuth, digests } = fixture);

  // Two evaluations of fetcher:2.0 under the active policy (the first becomes history), one under another policy.
  expect((await check(digests.fetcher, FETCHER)).status).toBe(200);
  expect((await check(digests.fetcher, FETCHER)).status).toBe(200);
  const lenient = { id: 'lenient', name: 'lenient', version: '2', rule_sets: [], allowlists: [], mappings: [] };
  expect((await json(server.url, 'POST', '/v2/policies', lenient)).status).toBe(200);
  expect((await check(digests.fetcher, FETCHER, 'lenient')).status).toBe(200);
  expect((await check(digests.newApi, API)).status).toBe(200);
  // The default rules plus a denylist entry for fetcher: findings in the details, yet denylisted.
  const base = (await raw(server.url, 'GET', '/v2/policies/vigil-default')).json.policy;
  const deny = { ...base, id: 'deny-fetcher', name: 'deny fetcher', denylisted_images: [{ id: 'd', name: 'fetcher', registry: '*', repository: 'team/fetcher', image: { type: 'digest', value: digests.fetcher } }] };
  expect((await json(server.url, 'POST', '/v2/policies', deny)).status).toBe(200);
  const denied = await check(digests.fetcher, FETCHER, 'deny-fetcher');
  expect(denied.json.evaluations[0]).toMatchObject({ final_action_reason: 'denylisted' });
  await refreshReports(server);
}, 120_000);

afterAll(async () => {
  await fixture?.close();
});

const IMAGES = `query($filter: VulnerabilityQueryFilter, $limit: Int, $nextToken: String) {
  imagesByVulnerability(filter: $filter, limit: $limit, nextToken: $nextToken) {
    pageInfo { nextToken count }
    results { vulnerabilityId cve severity links imagesCount images { digest account tags { registryName repositoryName tagName fullTag current detectedAt } } }
  }
}`;

async function images(filter: Record<string, unknown> = {}, auth?: Auth, path?: string) {
  const res = await gql(server, IMAGES, { variables: { filter }, auth, path });
  expect(res.errors).toBeUndefined();
  return res.data.imagesByVulnerability.results as { vulnerabilityId: string; severity: string; cve: string; imagesCount: number; images: { digest: string; account: string; tags: { fullTag: string; current: boolean }[] }[] }[];
}

const summary = (results: Awaited<ReturnType<typeof images>>) =>
  Object.fromEntries(results.map((r) => [r.vulnerabilityId, r.images.map((i) => i.digest).sort()]));

describe('imagesByVulnerability', () => {
  it('lists each vulnerability with the images whose current tags carry it', async () => {
    const results = await images();
    expect(summary(results)).toEqual({
      'DSA-9100-1': [digests.fetcher, digests.newApi].sort(),
      'DSA-9200-1': [digests.fetcher],
    });
    const curl = results.find((r) => r.vulnerabilityId === 'DSA-9100-1')!;
    expect(curl).toMatchObject({ cve: 'CVE-2099-9100', severity: 'Critical', imagesCount: 2 });
    expect(curl.images.find((i) => i.digest === digests.fetcher)!.tags.map((t) => t.fullTag)).toEqual([FETCHER, FETCHER_LATEST]);
    expect(curl.images.every((i) => i.account === 'admin')).toBe(true);
  });

  it('agrees with the REST vulnerability listing of each image', async () => {
    for (const digest of [digests.fetcher, digests.newApi]) {
      const rest = (await raw(server.url, 'GET', `/v2/images/${digest}/vuln/all`)).json.vulnerabilities.map((v: { vuln: string }) => v.vuln);
      const fromReport = (await images({ image: { digest } })).map((r) => r.vulnerabilityId);
      expect(fromReport.sort()).toEqual([...new Set<string>(rest)].sort());
    }
  });

  it('includes historic tag mappings only with currentOnly: false', async () => {
    expect(summary(await images({ tag: { currentOnly: false } }))['DSA-9200-1']).toEqual([digests.fetcher, digests.oldApi].sort());
    const old = (await images({ tag: { currentOnly: false }, image: { digest: digests.oldApi } }))[0];
    expect(old.images[0].tags).toEqual([expect.objectContaining({ fullTag: API, current: false })]);
  });

  it('filters by severity, id and detection time', async () => {
    expect(Object.keys(summary(await images({ vulnerability: { severity: 'Critical' } })))).toEqual(['DSA-9100-1']);
    expect(Object.keys(summary(await images({ vulnerability: { severity: 'Medium' } })))).toEqual(['DSA-9200-1']);
    expect(Object.keys(summary(await images({ vulnerability: { severity: 'Low' } })))).toEqual([]);
    expect(Object.keys(summary(await images({ vulnerability: { id: 'DSA-9200-1' } })))).toEqual(['DSA-9200-1']);
    const hourAhead = new Date(Date.now() + 3_600_000).toISOString().slice(0, 19);
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19);
    expect(await images({ vulnerability: { after: hourAhead } })).toEqual([]);
    expect(await images({ vulnerability: { before: hourAgo } })).toEqual([]);
    expect(Object.keys(summary(await images({ vulnerability: { after: hourAgo, before: hourAhead } })))).toEqual(['DSA-9100-1', 'DSA-9200-1']);
  });

  it('filters by registry, repository, tag name, artifact and image', async () => {
    expect(summary(await images({ repository: { name: 'team/api' } }))).toEqual({ 'DSA-9100-1': [digests.newApi] });
    expect(summary(await images({ tag: { name: 'latest' } }))).toEqual({ 'DSA-9100-1': [digests.fetcher], 'DSA-9200-1': [digests.fetcher] });
    expect(await images({ registry: { name: 'docker.io' } })).toEqual([]);
    expect(Object.keys(summary(await images({ registry: { name: 'registry.example.com' } })))).toHaveLength(2);
    expect(summary(await images({ artifact: { name: 'libssl3' } }))).toEqual({ 'DSA-9200-1': [digests.fetcher] });
    expect(summary(await images({ artifact: { name: 'curl', version: '7.88.1-10+deb12u5', type: 'dpkg' } }))).toEqual({ 'DSA-9100-1': [digests.fetcher, digests.newApi].sort() });
    expect(summary(await images({ image: { digest: digests.newApi } }))).toEqual({ 'DSA-9100-1': [digests.newApi] });
  });

  it('accepts an empty image filter', async () => {
    expect(await images({ image: {} })).toHaveLength(2);
  });
});

describe('artifactsByVulnerability and tagsByVulnerability', () => {
  it('groups affected packages with the images holding them', async () => {
    const res = await gql(
      server,
      `{ artifactsByVulnerability(filter: {vulnerability: {id: "DSA-9100-1"}}) { results { vulnerabilityId links artifactsCount
          artifacts { artifactName artifactVersion artifactType severity namespace fixedIn matchedBy confidence imagesCount images { digest } } } } }`,
    );
    expect(res.data.artifactsByVulnerability.results).toEqual([
      {
        vulnerabilityId: 'DSA-9100-1',
        links: expect.arrayContaining([expect.stringMatching(/^https:\/\//)]),
        artifactsCount: 1,
        artifacts: [
          {
            artifactName: 'curl',
            artifactVersion: '7.88.1-10+deb12u5',
            artifactType: 'dpkg',
            severity: 'Critical',
            namespace: 'debian:12',
            fixedIn: '7.88.1-10+deb12u6',
            matchedBy: ['package'],
            confidence: 'high',
            imagesCount: 2,
            images: expect.arrayContaining([{ digest: digests.fetcher }, { digest: digests.newApi }]),
          },
        ],
      },
    ]);
  });

  it('says how each artifact matched, as the REST findings do', async () => {
    // libssl3 is a binary of openssl, and DSA-9200-1 names only the source package.
    const res = await gql(
      server,
      `{ artifactsByVulnerability(filter: {vulnerability: {id: "DSA-9200-1"}}) { results { artifacts { artifactName matchedBy confidence } } } }`,
    );
    expect(res.data.artifactsByVulnerability.results).toEqual([{ artifacts: [{ artifactName: 'libssl3', matchedBy: ['source-package'], confidence: 'high' }] }]);
    const rest = await raw(server.url, 'GET', `/v2/images/${digests.fetcher}/vuln/os`);
    expect(rest.json.vulnerabilities.find((v: { vuln: string }) => v.vuln === 'DSA-9200-1')).toMatchObject({ package_name: 'libssl3', matched_by: 'source-package', confidence: 'high' });
    const tags = await gql(
      server,
      `{ tagsByVulnerability(filter: {vulnerability: {id: "DSA-9200-1"}}) { results { registries { repositories { tags { image { artifacts { artifactName matchedBy confidence } } } } } } } }`,
    );
    const artifacts = tags.data.tagsByVulnerability.results[0].registries.flatMap((r: { repositories: { tags: { image: { artifacts: unknown[] } }[] }[] }) =>
      r.repositories.flatMap((repo) => repo.tags.flatMap((t) => t.image.artifacts)),
    );
    expect(artifacts.length).toBeGreaterThan(0);
    expect(new Set(artifacts.map((a: unknown) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ artifactName: 'libssl3', matchedBy: 'source-package', confidence: 'high' })]));
  });

  it('returns the same artifacts whether or not fixedIn is selected, also through fragments', async () => {
    const lean = await gql(server, `{ artifactsByVulnerability { results { vulnerabilityId artifacts { artifactName artifactVersion namespace images { digest } } } } }`);
    const full = await gql(
      server,
      `query { artifactsByVulnerability { results { vulnerabilityId artifacts { ...Fix artifactName artifactVersion namespace images { digest } } } } } fragment Fix on AffectedArtifact { fixedIn }`,
    );
    const strip = (results: { artifacts: Record<string, unknown>[] }[]) => results.map((r) => ({ ...r, artifacts: r.artifacts.map(({ fixedIn: _f, ...a }) => a) }));
    expect(strip(full.data.artifactsByVulnerability.results)).toEqual(lean.data.artifactsByVulnerability.results);
    const curl = full.data.artifactsByVulnerability.results.find((r: { vulnerabilityId: string }) => r.vulnerabilityId === 'DSA-9100-1');
    expect(curl.artifacts[0].fixedIn).toBe('7.88.1-10+deb12u6');
  });

  it('nests registry, repository, tag, image and artifact', async () => {
    const res = await gql(
      server,
      `{ tagsByVulnerability(filter: {vulnerability: {severity: Critical}}) { results { vulnerabilityId cve registries { registryName
          repositories { repositoryName tagsCount tags { tagName detectedAt current image { digest link artifacts {
            artifactName artifactVersion artifactType artifactLocation namespace severity fixedIn fixObservedAt matchedBy confidence } } } } } } } }`,
    );
    const [result] = res.data.tagsByVulnerability.results;
    expect(result.vulnerabilityId).toBe('DSA-9100-1');
    expect(result.registries).toHaveLength(1);
    const repos = result.registries[0].repositories;
    expect(repos.map((r: { repositoryName: string; tagsCount: number }) => [r.repositoryName, r.tagsCount])).toEqual([
      ['team/api', 1],
      ['team/fetcher', 2],
    ]);
    const tag = repos[0].tags[0];
    expect(tag).toMatchObject({ tagName: '1.0', current: true, image: { digest: digests.newApi, link: `/v2/images/${digests.newApi}` } });
    expect(tag.image.artifacts).toEqual([
      {
        artifactName: 'curl',
        artifactVersion: '7.88.1-10+deb12u5',
        artifactType: 'dpkg',
        artifactLocation: '/var/lib/dpkg/status',
        namespace: 'debian:12',
        severity: 'Critical',
        fixedIn: '7.88.1-10+deb12u6',
        fixObservedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
        matchedBy: 'package',
        confidence: 'high',
      },
    ]);
  });
});

const POLICY = `query($filter: PolicyEvaluationsQueryFilter, $limit: Int, $nextToken: String) {
  policyEvaluationsByTag(filter: $filter, limit: $limit, nextToken: $nextToken) {
    pageInfo { nextToken count }
    results { registryName repositories { repositoryName tagsCount tags { tagName imageDigest detectedAt current
      evaluations { result reason lastEvaluatedAt latest policyBundle { bundleId bundleDigest active } } } } }
  }
}`;

type PolicyTag = { tagName: string; imageDigest: string; current: boolean; evaluations: { result: string; latest: boolean; policyBundle: { bundleId: string; active: boolean } }[] };

async function policyTags(filter: Record<string, unknown> = {}, limit?: number): Promise<Record<string, PolicyTag>> {
  const res = await gql(server, POLICY, { variables: { filter, limit } });
  expect(res.errors).toBeUndefined();
  const out: Record<string, PolicyTag> = {};
  for (const reg of res.data.policyEvaluationsByTag.results)
    for (const repo of reg.repositories) for (const tag of repo.tags) out[`${reg.registryName}/${repo.repositoryName}:${tag.tagName}@${tag.imageDigest.slice(7, 13)}`] = tag;
  return out;
}

describe('policyEvaluationsByTag', () => {
  it('shows current tags with the latest evaluation under the active policy by default', async () => {
    const tags = await policyTags();
    const fetcher = Object.entries(tags).find(([k]) => k.startsWith('registry.example.com/team/fetcher:2.0'))![1];
    expect(fetcher.evaluations).toEqual([
      expect.objectContaining({ result: 'Fail', reason: 'policy_evaluation', latest: true, policyBundle: expect.objectContaining({ bundleId: 'vigil-default', active: true }) }),
    ]);
    expect(Object.values(tags).every((t) => t.current)).toBe(true);
    // Analysis evaluates every tag of the image with the active policy; fetcher:latest was not checked since.
    expect(Object.entries(tags).find(([k]) => k.includes('fetcher:latest'))![1].evaluations).toEqual([expect.objectContaining({ result: 'Fail', latest: true })]);
  });

  it('includes earlier evaluations with latestOnly: false and other policies with active: false', async () => {
    const all = await policyTags({ policyEvaluation: { latestOnly: false }, policyBundle: { active: false }, tag: { name: '2.0' } });
    const [fetcher] = Object.values(all);
    // The evaluation at analysis, two checks under the active policy, one under another policy.
    expect(fetcher.evaluations.map((e) => `${e.policyBundle.bundleId}:${e.latest}`).sort()).toEqual(['deny-fetcher:true', 'lenient:true', 'vigil-default:false', 'vigil-default:false', 'vigil-default:true']);
    const lenient = await policyTags({ policyBundle: { active: false, id: 'lenient' } });
    expect(Object.keys(lenient)).toHaveLength(1);
    expect(Object.values(lenient)[0].evaluations).toEqual([expect.objectContaining({ result: 'Pass', policyBundle: expect.objectContaining({ bundleId: 'lenient', active: false }) })]);
  });

  it('reports and filters by the reason of the evaluation', async () => {
    const denied = await policyTags({ policyEvaluation: { reason: 'denylisted' }, policyBundle: { active: false } });
    expect(Object.keys(denied).map((k) => k.split('@')[0])).toEqual(['registry.example.com/team/fetcher:2.0']);
    expect(Object.values(denied)[0].evaluations.find((e) => e.policyBundle.bundleId === 'deny-fetcher')).toMatchObject({ result: 'Fail', reason: 'denylisted' });
  });

  it('filters by result, repository, registry, tag and currency', async () => {
    expect(Object.keys(await policyTags({ policyEvaluation: { result: 'Fail' } })).map((k) => k.split('@')[0]).sort()).toEqual([
      'registry.example.com/team/api:1.0',
      'registry.example.com/team/fetcher:2.0',
      'registry.example.com/team/fetcher:latest',
    ]);
    expect(await policyTags({ policyEvaluation: { result: 'Pass' } })).toEqual({});
    expect(Object.keys(await policyTags({ policyEvaluation: { result: 'Pass' }, policyBundle: { active: false } }))).toHaveLength(1);
    expect(Object.keys(await policyTags({ repository: { name: 'team/api' } }))).toHaveLength(1);
    expect(Object.keys(await policyTags({ repository: { name: 'team/api' }, tag: { currentOnly: false } }))).toHaveLength(2);
    expect(await policyTags({ registry: { name: 'quay.io' } })).toEqual({});
  });
});

describe('paging', () => {
  async function pageThrough(query: string, field: string, variables: Record<string, unknown>, limit: number) {
    const seen: unknown[] = [];
    let nextToken: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const res: GqlResponse = await gql(server, query, { variables: { ...variables, limit, nextToken } });
      expect(res.errors).toBeUndefined();
      const page: { pageInfo: { count: number; nextToken: string | null }; results: unknown[] } = res.data[field];
      expect(page.pageInfo.count).toBe(page.results.length);
      seen.push(...page.results);
      nextToken = page.pageInfo.nextToken;
      if (!nextToken) return seen;
      expect(page.results).toHaveLength(limit);
    }
    throw new Error('paging did not end');
  }

  it('returns every vulnerability exactly once across pages', async () => {
    const all = await images({ tag: { currentOnly: false } });
    const paged = (await pageThrough(IMAGES, 'imagesByVulnerability', { filter: { tag: { currentOnly: false } } }, 1)) as typeof all;
    expect(paged.map((r) => r.vulnerabilityId)).toEqual(all.map((r) => r.vulnerabilityId));
    expect(paged).toEqual(all);
  });

  it('returns every tag exactly once across pages', async () => {
    const all = await policyTags({ tag: { currentOnly: false } });
    const paged = await pageThrough(POLICY, 'policyEvaluationsByTag', { filter: { tag: { currentOnly: false } } }, 1);
    const keys = (paged as { registryName: string; repositories: { repositoryName: string; tags: { tagName: string; imageDigest: string }[] }[] }[]).flatMap((reg) =>
      reg.repositories.flatMap((repo) => repo.tags.map((t) => `${reg.registryName}/${repo.repositoryName}:${t.tagName}@${t.imageDigest.slice(7, 13)}`)),
    );
    expect(keys).toEqual(Object.keys(all));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('keeps pages stable when rows are inserted before the cursor', async () => {
    const first = await gql(server, IMAGES, { variables: { limit: 1 } });
    expect(first.data.imagesByVulnerability.results[0].vulnerabilityId).toBe('DSA-9100-1');
    const { db } = server.running.services;
    // A finding that sorts before the cursor appears between the two page requests.
    await db('report_findings').insert({
      account_name: 'admin', image_digest: digests.fetcher, vuln_id: 'AAA-0000-1', feed: 'osv', severity: 'Low', package_name: 'x', package_version: '1',
      package_type: 'dpkg', package_path: null, namespace: 'debian:12', fixed_in: null, fix_observed_at: null, detected_at: new Date().toISOString(), tag_state: 2,
    });
    try {
      const second = await gql(server, IMAGES, { variables: { limit: 1, nextToken: first.data.imagesByVulnerability.pageInfo.nextToken } });
      expect(second.data.imagesByVulnerability.results.map((r: { vulnerabilityId: string }) => r.vulnerabilityId)).toEqual(['DSA-9200-1']);
      expect(second.data.imagesByVulnerability.pageInfo.nextToken).toBeNull();
    } finally {
      await db('report_findings').where({ vuln_id: 'AAA-0000-1' }).delete();
    }
  });

  it('refuses altered tokens, tokens of another query and out-of-range limits, naming the argument', async () => {
    const first = await gql(server, IMAGES, { variables: { limit: 1 } });
    const token: string = first.data.imagesByVulnerability.pageInfo.nextToken;
    const [body, mac] = token.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), k: ['A'] })).toString('base64url');
    for (const bad of [`${forgedBody}.${mac}`, `${body}.${mac.slice(1)}x`, 'garbage', `${body}`]) {
      const res = await gql(server, IMAGES, { variables: { limit: 1, nextToken: bad } });
      expect(res.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', argument: 'nextToken' } });
    }
    const otherFilter = await gql(server, IMAGES, { variables: { limit: 1, nextToken: token, filter: { vulnerability: { severity: 'Critical' } } } });
    expect(otherFilter.errors?.[0].message).toMatch(/different query/);
    const otherQuery = await gql(server, POLICY, { variables: { nextToken: token } });
    expect(otherQuery.errors?.[0].extensions).toMatchObject({ argument: 'nextToken' });
    for (const limit of [0, -1, 1001]) {
      const res = await gql(server, IMAGES, { variables: { limit } });
      expect(res.errors?.[0]).toMatchObject({ extensions: { argument: 'limit' } });
      expect(res.errors?.[0].message).toMatch(/between 1 and 1000/);
    }
  });
});

describe('filters that are not well formed', () => {
  it('names the argument of a malformed timestamp literal or variable', async () => {
    for (const value of ['2024-01-01', '2024-01-01T00:00:00Z', '2024-13-01T00:00:00', 'yesterday']) {
      const literal = await gql(server, `{ imagesByVulnerability(filter: {vulnerability: {after: "${value}"}}) { results { vulnerabilityId } } }`);
      expect(literal.status).toBe(400);
      expect(literal.errors).toHaveLength(1);
      expect(literal.errors![0]).toMatchObject({ extensions: { argument: 'filter.vulnerability.after' } });
      const variable = await gql(server, `query($t: UtcTimestamp) { metricData(filter: {start: $t}) { results { value } } }`, { variables: { t: value } });
      expect(variable.errors![0].message).toMatch(/\$t.*not a UTC timestamp/s);
    }
  });

  it('rejects unknown filter fields and wrong enum values', async () => {
    const unknown = await gql(server, `{ imagesByVulnerability(filter: {vulnerability: {score: 9}}) { results { vulnerabilityId } } }`);
    expect(unknown.errors![0].message).toMatch(/score/);
    const severity = await gql(server, `{ imagesByVulnerability(filter: {vulnerability: {severity: Catastrophic}}) { results { vulnerabilityId } } }`);
    expect(severity.errors![0].message).toMatch(/Severity/);
  });
});

describe('scopes and access', () => {
  it('shows an account only its own images', async () => {
    const theirs = await images({}, readerAuth);
    expect(summary(theirs)).toEqual({ 'DSA-9100-1': [digests.theirs] });
    expect(theirs[0].images[0].account).toBe(reader.account);
    expect(JSON.stringify(await images())).not.toContain(digests.theirs);
  });

  // x-anchore-account, the header clients of the established API send, is an alias with the same checks.
  it.each(['x-service-account', 'x-anchore-account'])('lets an administrator act on another account with %s, and no one else', async (header) => {
    const asReader = await gql(server, IMAGES, { headers: { [header]: reader.account } });
    expect(summary(asReader.data.imagesByVulnerability.results)).toEqual({ 'DSA-9100-1': [digests.theirs] });
    const intoAdmin = await gql(server, IMAGES, { auth: readerAuth, headers: { [header]: 'admin' } });
    expect(intoAdmin.status).toBe(403);
    expect(intoAdmin.body).toMatchObject({ code: 403, error_type: 'forbidden' });
    // A missing account is never the caller's own: 404 for an administrator, 403 for anyone else.
    const missing = await gql(server, IMAGES, { headers: { [header]: 'no-such-account' } });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain(header);
    const missingForReader = await gql(server, IMAGES, { auth: readerAuth, headers: { [header]: 'no-such-account' } });
    expect(missingForReader.status).toBe(403);
  });

  it('answers 400 when x-service-account and x-anchore-account name different accounts', async () => {
    const both = await gql(server, IMAGES, { headers: { 'x-service-account': reader.account, 'x-anchore-account': 'admin' } });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ code: 400, error_type: 'validation_error' });
    const same = await gql(server, IMAGES, { headers: { 'x-service-account': reader.account, 'x-anchore-account': reader.account } });
    expect(summary(same.data.imagesByVulnerability.results)).toEqual({ 'DSA-9100-1': [digests.theirs] });
  });

  it('serves the global endpoint to administrators only, across accounts', async () => {
    const global = await images({ vulnerability: { id: 'DSA-9100-1' } }, undefined, '/v2/reports/global/graphql');
    expect(global[0].images.map((i) => `${i.account}:${i.digest}`).sort()).toEqual(
      [`admin:${digests.fetcher}`, `admin:${digests.newApi}`, `${reader.account}:${digests.theirs}`].sort(),
    );
    const denied = await gql(server, IMAGES, { auth: readerAuth, path: '/v2/reports/global/graphql' });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/administrators/);
  });

  it('needs credentials, and a role that allows viewing reports', async () => {
    const anonymous = await gql(server, IMAGES, { auth: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 401, error_type: 'unauthorized' });
    const wrong = await gql(server, IMAGES, { auth: { basic: ['admin', 'wrong'] } });
    expect(wrong.status).toBe(401);
    const analyzer = await createUserWithRole(server.url, { role: 'image-analyzer' });
    const denied = await gql(server, IMAGES, { auth: { basic: [analyzer.username, analyzer.password] } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/viewReports/);
  });
});

describe('transport', () => {
  it('answers GET with the query in the query string, with variables and an operation name', async () => {
    const res = await gql(server, `query A { reportingStatus { maxPageSize } } query B($id: String) { imagesByVulnerability(filter: {vulnerability: {id: $id}}) { results { vulnerabilityId } } }`, {
      method: 'GET',
      operationName: 'B',
      variables: { id: 'DSA-9200-1' },
    });
    expect(res.status).toBe(200);
    expect(res.data.imagesByVulnerability.results).toEqual([{ vulnerabilityId: 'DSA-9200-1' }]);
  });

  it('answers a POST that carries the query in the query string and no body (upstream clients do this)', async () => {
    const res = await fetch(`${server.url}/v2/reports/graphql?query=${encodeURIComponent('{ reportingStatus { maxPageSize defaultPageSize } }')}`, {
      method: 'POST',
      headers: authHeader(adminAuth),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { reportingStatus: { maxPageSize: 1000, defaultPageSize: 100 } } });
  });

  it('refuses mutations over GET and reports syntax errors', async () => {
    const mutation = await gql(server, `mutation { deleteScheduledQuery(uuid: "x") { ok } }`, { method: 'GET' });
    expect(mutation.status).toBe(405);
    const syntax = await gql(server, `{ imagesByVulnerability( { results } }`);
    expect(syntax.status).toBe(400);
    expect(syntax.errors![0].message).toMatch(/Syntax Error/);
  });

  it('returns the self-describing schema to an introspection query', async () => {
    const res = await gql(server, `{ __schema { queryType { name fields { name } } mutationType { name } } __type(name: "RuntimeInventoryImagesByVulnerabilityResponse") { name } }`);
    const fields = res.data.__schema.queryType.fields.map((f: { name: string }) => f.name);
    for (const name of ['imagesByVulnerability', 'artifactsByVulnerability', 'tagsByVulnerability', 'policyEvaluationsByTag', 'metrics', 'metricData', 'scheduledQueries', 'runtimeInventoryImagesByVulnerability'])
      expect(fields).toContain(name);
    expect(res.data.__schema.mutationType.name).toBe('Mutation');
    expect(res.data.__type.name).toBe('RuntimeInventoryImagesByVulnerabilityResponse');
  });

  it('stops abusive queries with a GraphQL error before running them', async () => {
    const aliases = Array.from({ length: 12 }, (_, i) => `a${i}: imagesByVulnerability { results { vulnerabilityId } }`).join(' ');
    const costly = await gql(server, `{ ${aliases} }`);
    expect(costly.status).toBe(400);
    expect(costly.errors!.map((e) => e.extensions?.code)).toContain('QUERY_TOO_COSTLY');
    let deep = 'x';
    for (let i = 0; i < 14; i++) deep = `f${i} { ${deep} }`;
    const tooDeep = await gql(server, `{ ${deep} }`);
    expect(tooDeep.errors!.map((e) => e.extensions?.code)).toContain('QUERY_TOO_DEEP');
  });
});

describe('freshness', () => {
  it('shows REST changes after a refresh and says how fresh the data is', async () => {
    const before = await gql(server, `{ reportingStatus { refreshedAt pendingChanges refreshIntervalSeconds } }`);
    expect(before.data.reportingStatus).toMatchObject({ pendingChanges: 0, refreshIntervalSeconds: 3600, refreshedAt: expect.any(String) });
    const deleted = await raw(server.url, 'DELETE', `/v2/images/${digests.oldApi}?force=true`);
    expect(deleted.status).toBe(200);
    // Not applied yet: the lag the specification allows, visible as pending changes.
    expect((await gql(server, `{ reportingStatus { pendingChanges } }`)).data.reportingStatus.pendingChanges).toBeGreaterThan(0);
    expect(summary(await images({ tag: { currentOnly: false } }))['DSA-9200-1']).toContain(digests.oldApi);
    await refreshReports(server);
    expect(summary(await images({ tag: { currentOnly: false } }))['DSA-9200-1']).toEqual([digests.fetcher]);
    expect((await gql(server, `{ reportingStatus { pendingChanges } }`)).data.reportingStatus.pendingChanges).toBe(0);
  });
});
