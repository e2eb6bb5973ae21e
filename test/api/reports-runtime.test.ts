/**
 * runtimeInventoryImagesByVulnerability over real data: analyzed images reported running through the REST
 * inventory endpoints (Kubernetes by digest and by tag alone, ECS), joined with their findings.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, refreshReports, type GqlResponse } from '../support/graphql.js';
import { json, raw, type Auth } from '../support/http.js';
import { API, FETCHER, THEIRS, startReportServer, type ReportFixture } from '../support/report-fixtures.js';

let fixture: ReportFixture;
const ECS_CLUSTER = 'arn:aws:ecs:eu-west-1:123456789012:cluster/prod';

const QUERY = `query($filter: RuntimeInventoryImagesByVulnerabilityFilter, $limit: Int, $nextToken: String, $imagesLimit: Int, $context: String, $artifact: String) {
  runtimeInventoryImagesByVulnerability(filter: $filter, limit: $limit, nextToken: $nextToken) {
    pageInfo { nextToken count }
    results { vulnerabilityId cve severity links imagesCount account
      images(limit: $imagesLimit, context: $context) { context inventoryType imageTag digest lastSeen artifacts(name: $artifact) { artifactName artifactVersion artifactType artifactLocation severity fixedIn } } }
  }
}`;

type Result = { vulnerabilityId: string; imagesCount: number; account: string; images: { context: string; inventoryType: string; imageTag: string; digest: string; artifacts: { artifactName: string }[] }[] };

async function runtime(variables: Record<string, unknown> = {}, path?: string, auth?: Auth): Promise<Result[]> {
  const res = await gql(fixture.server, QUERY, { variables, path, auth });
  expect(res.errors).toBeUndefined();
  return res.data.runtimeInventoryImagesByVulnerability.results;
}

const where = (r: Result) => r.images.map((i) => `${i.context} ${i.imageTag} ${i.digest.slice(7, 13)}`).sort();

function kubernetesReport(cluster: string, containers: { image_tag: string; image_digest?: string; ns: 'web' | 'jobs' }[]) {
  const ns = { web: randomUUID(), jobs: randomUUID() };
  const pods = { web: randomUUID(), jobs: randomUUID() };
  return {
    cluster_name: cluster,
    timestamp: new Date().toISOString(),
    namespaces: [
      { uid: ns.web, name: 'web' },
      { uid: ns.jobs, name: 'jobs' },
    ],
    pods: [
      { uid: pods.web, name: 'web-1', namespace_uid: ns.web },
      { uid: pods.jobs, name: 'jobs-1', namespace_uid: ns.jobs },
    ],
    containers: containers.map((c, i) => ({ id: `containerd://${i}`, name: `c${i}`, image_tag: c.image_tag, ...(c.image_digest ? { image_digest: c.image_digest } : {}), pod_uid: pods[c.ns] })),
  };
}

beforeAll(async () => {
  fixture = await startReportServer({ VIGIL_INVENTORY_ANALYZE: 'false' });
  const { server, digests } = fixture;
  const k8s = await json(
    server.url,
    'POST',
    '/v2/kubernetes-inventory',
    kubernetesReport('prod', [
      { image_tag: FETCHER, image_digest: digests.fetcher, ns: 'web' },
      // No digest: resolved through the tag's current mapping (newApi, not the historic oldApi).
      { image_tag: API, ns: 'jobs' },
      // Not analyzed: runs, but has no findings to report.
      { image_tag: 'docker.io/library/unknown:1', ns: 'jobs' },
    ]),
  );
  expect(k8s.status).toBe(201);
  const ecs = await json(server.url, 'POST', '/v2/ecs-inventory', {
    cluster_arn: ECS_CLUSTER,
    timestamp: new Date().toISOString(),
    containers: [{ arn: `${ECS_CLUSTER}/container/1`, image_tag: FETCHER, image_digest: digests.fetcher }],
  });
  expect(ecs.status).toBe(204);
  const theirs = await json(server.url, 'POST', '/v2/kubernetes-inventory', kubernetesReport('theirs', [{ image_tag: THEIRS, image_digest: digests.theirs, ns: 'web' }]), fixture.readerAuth);
  expect(theirs.status).toBe(201);
  await refreshReports(server);
}, 120_000);

afterAll(async () => {
  await fixture?.close();
});

describe('runtimeInventoryImagesByVulnerability', () => {
  it('joins the images seen running with their findings, one entry per place each runs', async () => {
    const { digests } = fixture;
    const results = await runtime();
    expect(results.map((r) => r.vulnerabilityId)).toEqual(['DSA-9100-1', 'DSA-9200-1']);
    const [curl, ssl] = results;
    expect(curl).toMatchObject({ account: 'admin', imagesCount: 2 });
    expect(where(curl)).toEqual(
      [`${ECS_CLUSTER} ${FETCHER} ${digests.fetcher.slice(7, 13)}`, `prod/jobs ${API} ${digests.newApi.slice(7, 13)}`, `prod/web ${FETCHER} ${digests.fetcher.slice(7, 13)}`].sort(),
    );
    expect(ssl).toMatchObject({ imagesCount: 1 });
    expect(ssl.images.map((i) => i.inventoryType).sort()).toEqual(['ecs', 'kubernetes']);
    expect(curl.images.find((i) => i.context === 'prod/web')!.artifacts).toEqual([
      { artifactName: 'curl', artifactVersion: '7.88.1-10+deb12u5', artifactType: 'dpkg', artifactLocation: '/var/lib/dpkg/status', severity: 'Critical', fixedIn: '7.88.1-10+deb12u6' },
    ]);
  });

  it('filters by vulnerability, artifact and image, alone or combined', async () => {
    const { digests } = fixture;
    expect((await runtime({ filter: { vulnerability: { severity: 'Critical' } } })).map((r) => r.vulnerabilityId)).toEqual(['DSA-9100-1']);
    expect((await runtime({ filter: { vulnerability: { id: 'DSA-9200-1' } } })).map((r) => r.vulnerabilityId)).toEqual(['DSA-9200-1']);
    expect((await runtime({ filter: { artifact: { name: 'libssl3' } } })).map((r) => r.vulnerabilityId)).toEqual(['DSA-9200-1']);
    const jobs = await runtime({ filter: { image: { context: 'prod/jobs' } } });
    expect(jobs.map((r) => [r.vulnerabilityId, r.imagesCount])).toEqual([['DSA-9100-1', 1]]);
    const ecs = await runtime({ filter: { image: { inventoryType: 'ecs' }, vulnerability: { severity: 'Medium' } } });
    expect(ecs.map((r) => where(r))).toEqual([[`${ECS_CLUSTER} ${FETCHER} ${digests.fetcher.slice(7, 13)}`]]);
    expect(await runtime({ filter: { image: { digest: digests.newApi }, artifact: { name: 'libssl3' } } })).toEqual([]);
    expect(await runtime({ filter: { image: {} } })).toHaveLength(2);
  });

  it('takes its own arguments on images and artifacts', async () => {
    const [curl] = await runtime({ imagesLimit: 1 });
    expect(curl.images).toHaveLength(1);
    expect(curl.imagesCount).toBe(2);
    const [onlyWeb] = await runtime({ context: 'prod/web' });
    expect(onlyWeb.images.map((i) => i.context)).toEqual(['prod/web']);
    const [noArtifacts] = await runtime({ artifact: 'zlib' });
    expect(noArtifacts.images.every((i) => i.artifacts.length === 0)).toBe(true);
    const bad = await gql(fixture.server, QUERY, { variables: { imagesLimit: -1 } });
    expect(bad.errors![0]).toMatchObject({ extensions: { argument: 'images(limit)' } });
  });

  it('pages through (account, vulnerability) keys exactly once', async () => {
    const all = await runtime();
    const seen: Result[] = [];
    let nextToken: string | null = null;
    do {
      const res: GqlResponse = await gql(fixture.server, QUERY, { variables: { limit: 1, nextToken } });
      seen.push(...res.data.runtimeInventoryImagesByVulnerability.results);
      nextToken = res.data.runtimeInventoryImagesByVulnerability.pageInfo.nextToken;
    } while (nextToken && seen.length < 10);
    expect(seen).toEqual(all);
  });

  it("keeps accounts apart, and shows every account's on the global endpoint", async () => {
    const theirs = await runtime({}, undefined, fixture.readerAuth);
    expect(theirs.map((r) => [r.account, r.vulnerabilityId, r.images.map((i) => i.context)])).toEqual([[fixture.reader.account, 'DSA-9100-1', ['theirs/web']]]);
    const global = await runtime({ filter: { vulnerability: { id: 'DSA-9100-1' } } }, '/v2/reports/global/graphql');
    expect(global.map((r) => r.account).sort()).toEqual(['admin', fixture.reader.account].sort());
  });

  it('drops what is no longer running after the inventory is deleted', async () => {
    const del = await raw(fixture.server.url, 'DELETE', `/v2/inventories?inventory_type=ecs&context=${encodeURIComponent(ECS_CLUSTER)}`);
    expect(del.status).toBe(204);
    await refreshReports(fixture.server);
    const results = await runtime();
    expect(results.flatMap((r) => r.images.map((i) => i.inventoryType))).not.toContain('ecs');
  });
});
