/**
 * Drop-in compatibility (issue 15) of the feed-backed paths: the vulnerability query's one-of-required parameters
 * and its bounded answer whatever the number of matches, the one-time scan (POST /scan) of an SBOM with its
 * policy evaluation, storing nothing, and the import of a whole SBOM document (POST /imports/images/{id}/sbom).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { expectError, expectValidationError } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { createAccount, createUser } from '../support/rbac-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { EPSS_CSV, KEV_CATALOG, initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

/** Advisories for one PyPI package, more than one chunk of the query's work: even ones affect 1.0, odd ones not. */
const BULK = 450;
const bulkId = (i: number) => `PYSEC-2099-B${String(i).padStart(4, '0')}`;

let server: TestServer;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-compat-scan-'));
  const records = initialRecords();
  for (let i = 1; i <= BULK; i += 1)
    records[bulkId(i)] = osvRecord(bulkId(i), 'PyPI', 'bulk-pkg', i % 2 === 0 ? [{ introduced: '0' }, { fixed: '2.0' }] : [{ introduced: '3.0' }, { fixed: '4.0' }]);
  writeRecords(join(work, 'osv'), records);
  writeFileSync(join(work, 'kev.json'), JSON.stringify(KEV_CATALOG));
  writeFileSync(join(work, 'epss.csv'), EPSS_CSV);
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')},kev=${join(work, 'kev.json')},epss=${join(work, 'epss.csv')}` });
  const sync = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(sync.json.status).toBe('done');
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('GET /query/vulnerabilities', () => {
  it('declares its one-of-required parameters in the served spec', async () => {
    const spec = await raw(server.url, 'GET', '/v2/openapi.json', { auth: null });
    const op = spec.json.paths['/query/vulnerabilities'].get;
    expect(op['x-one-of-required']).toEqual(['id', 'affected_package']);
    expect(op.description).toMatch(/One of `id` and `affected_package` is required/);
  });

  it('answers 400 naming both parameters when neither is given', async () => {
    for (const query of ['', '?namespace=pypi', '?limit=5', '?affected_package_version=1.0']) {
      const res = await raw(server.url, 'GET', `/v2/query/vulnerabilities${query}`);
      expectValidationError(res, ['query']);
      expect(res.json.message).toContain('needs at least one of id, affected_package');
    }
  });

  it('returns every match with limit 0, written as it is read', async () => {
    const res = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=bulk-pkg');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.json).toMatchObject({ page: '1', next_page: '', returned_count: BULK });
    expect(res.json.vulnerabilities.map((v: { id: string }) => v.id)).toEqual(Array.from({ length: BULK }, (_, i) => bulkId(i + 1)));
    const affected = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=Bulk_Pkg&affected_package_version=1.0&limit=0');
    expect(affected.json.returned_count).toBe(BULK / 2);
    expect(affected.json.vulnerabilities.every((v: { id: string }) => Number(v.id.slice(-4)) % 2 === 0)).toBe(true);
  });

  it('pages across chunks, with next_page only while more matches follow', async () => {
    const page = async (n: number, extra = '') => (await raw(server.url, 'GET', `/v2/query/vulnerabilities?affected_package=bulk-pkg&limit=200&page=${n}${extra}`)).json;
    const second = await page(2);
    expect(second).toMatchObject({ page: '2', next_page: '3', returned_count: 200 });
    expect(second.vulnerabilities[0].id).toBe(bulkId(201));
    expect(second.vulnerabilities.at(-1).id).toBe(bulkId(400));
    expect(await page(3)).toMatchObject({ page: '3', next_page: '', returned_count: 50 });
    expect(await page(4)).toMatchObject({ page: '4', next_page: '', returned_count: 0, vulnerabilities: [] });
    // 225 affect 1.0: a page of exactly the remainder has no next page.
    const filtered = await page(2, '&affected_package_version=1.0');
    expect(filtered).toMatchObject({ next_page: '', returned_count: 25 });
    expect(filtered.vulnerabilities[0].id).toBe(bulkId(402));
  });
});

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
const MANIFEST_DIGEST = `sha256:${'a'.repeat(64)}`;
const DIFF_ID = `sha256:${'1'.repeat(64)}`;
const CONFIG = {
  architecture: 'arm64',
  os: 'linux',
  rootfs: { type: 'layers', diff_ids: [DIFF_ID] },
  history: [{ created_by: '/bin/sh -c #(nop)  EXPOSE 22/tcp' }, { created_by: '/bin/sh -c #(nop)  CMD ["sshd", "-D"]' }],
};

function deb(name: string, version: string, source: string) {
  return {
    id: `deb-${name}`,
    name,
    version,
    type: 'deb',
    foundBy: 'dpkg-db-cataloger',
    locations: [{ path: '/var/lib/dpkg/status' }],
    licenses: [],
    language: '',
    cpes: [],
    purl: `pkg:deb/debian/${name}@${encodeURIComponent(version)}?arch=amd64&distro=debian-12`,
    metadataType: 'DpkgMetadata',
    metadata: { package: name, source, version, architecture: 'amd64' },
  };
}

const PY_REQUESTS = {
  id: 'py-requests',
  name: 'requests',
  version: '2.28.1',
  type: 'python',
  foundBy: 'python-package-cataloger',
  locations: [{ path: '/usr/lib/python3/dist-packages/requests-2.28.1.dist-info/METADATA' }],
  licenses: ['Apache-2.0'],
  language: 'python',
  cpes: [],
  purl: 'pkg:pypi/requests@2.28.1',
  metadataType: 'PythonPackageMetadata',
  metadata: {},
};

/** syft JSON of an image, as AnchoreCTL generates it: image facts (manifest, config) in source.metadata. */
function syftImage(artifacts: unknown[]) {
  return {
    artifacts,
    artifactRelationships: [],
    source: {
      id: 'scan-subject',
      name: 'scan-me',
      type: 'image',
      metadata: {
        userInput: 'scan-me:1',
        imageID: `sha256:${'c'.repeat(64)}`,
        manifestDigest: MANIFEST_DIGEST,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        tags: ['scan-me:1'],
        imageSize: 5000,
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: DIFF_ID, size: 5000 }],
        manifest: b64({ schemaVersion: 2, config: { digest: `sha256:${'c'.repeat(64)}` }, layers: [{ digest: `sha256:${'d'.repeat(64)}`, size: 5000 }] }),
        config: b64(CONFIG),
        repoDigests: [],
        architecture: 'arm64',
        os: 'linux',
      },
    },
    distro: { prettyName: 'Debian GNU/Linux 12 (bookworm)', name: 'Debian GNU/Linux', id: 'debian', versionID: '12' },
    descriptor: { name: 'syft', version: '1.4.1' },
    schema: { version: '16.0.0', url: 'https://raw.githubusercontent.com/anchore/syft/main/schema/json/schema-16.0.0.json' },
  };
}

const SBOM = syftImage([deb('libssl3', '3.0.11-1~deb12u2', 'openssl'), deb('zlib1g', '1:1.2.13.dfsg-1', 'zlib'), PY_REQUESTS]);

const SCAN_POLICY = {
  id: 'scan-checks',
  name: 'Scan checks',
  version: '2',
  rule_sets: [
    {
      id: 'rs',
      name: 'Scan rules',
      version: '2',
      rules: [
        { id: 'secrets', gate: 'secret_scans', trigger: 'content_regex_checks', action: 'STOP', params: [] },
        { id: 'root', gate: 'retrieved_files', trigger: 'content_regex', action: 'WARN', params: [{ name: 'path', value: '/etc/passwd' }, { name: 'check', value: 'match' }, { name: 'regex', value: 'toor:' }] },
        { id: 'added', gate: 'tag_drift', trigger: 'packages_added', action: 'WARN', params: [] },
      ],
    },
  ],
  allowlists: [],
  mappings: [{ id: 'm', name: 'All', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs'], allowlist_ids: [] }],
};

const SEARCH_METADATA = { analyzed_at: '2026-11-01T00:00:00Z', anchorectl_version: 'v5.9.0', platform: 'linux/amd64' };

/** Rows of everything a scan must not write, per table. */
async function storedCounts(): Promise<Record<string, number>> {
  const db = server.running.services.db;
  const tables = ['images', 'image_tags', 'image_packages', 'image_documents', 'image_vulnerabilities', 'policy_evaluations', 'events', 'import_contents', 'jobs'];
  const counts: Record<string, number> = {};
  // Periodic runs queue their next slot as time passes: only jobs a request could have queued count.
  const periodic = server.running.services.worker.periodicKinds;
  for (const t of tables) {
    const rows = t === 'jobs' ? db(t).whereNotIn('kind', periodic) : db(t);
    counts[t] = Number((await rows.count({ n: '*' }))[0]!.n);
  }
  return counts;
}

const scan = (query: string, body: unknown, auth?: Parameters<typeof json>[4]) => json(server.url, 'POST', `/v2/scan?${query}`, body, auth);

describe('POST /scan (one-time scan)', () => {
  it('matches the SBOM and evaluates the active policy for the tag, storing nothing', async () => {
    expect((await raw(server.url, 'GET', '/v2/policies')).status).toBe(200); // the account's default policy exists
    const before = await storedCounts();
    const res = await scan('tag=scan-me:1', { sbom: SBOM });
    expect(res.status, res.text).toBe(200);
    expect(await storedCounts()).toEqual(before);

    const { vuln_scan: vulns, policy_scan: policy } = res.json;
    expect(vulns).toMatchObject({ sbom_id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), extended_support: false, distro: 'debian:12' });
    // libssl3 by its source package, requests by its window; zlib's won't-fix finding is left out as vendor_only does.
    expect(vulns.vulnerabilities.map((v: { vuln: string; package_name: string }) => `${v.vuln} ${v.package_name}`).sort()).toEqual(['DSA-9001-1 libssl3', 'PYSEC-2099-6 requests']);

    expect(policy).toMatchObject({ policy_id: 'vigil-default', image_digest: MANIFEST_DIGEST, evaluated_tag: 'docker.io/library/scan-me:1' });
    expect(policy.evaluations).toHaveLength(1);
    const [evaluation] = policy.evaluations;
    expect(evaluation).toMatchObject({ status: 'fail', final_action: 'stop', final_action_reason: 'policy_evaluation', image_mapped_to_rule: true });
    const findings = evaluation.details.findings.map((f: { rule_id: string; trigger_id: string; action: string }) => `${f.rule_id} ${f.action} ${f.trigger_id}`);
    expect(findings).toContain('vulns-above-medium stop DSA-9001-1+libssl3');
    // The Dockerfile guessed from the config's history in the SBOM: SSH exposed, no HEALTHCHECK.
    expect(findings.some((f: string) => f.startsWith('ssh-exposed stop '))).toBe(true);
    expect(findings.some((f: string) => f.startsWith('no-healthcheck warn '))).toBe(true);
    expect(evaluation.number_of_findings).toBe(findings.length);
  });

  it('evaluates a named policy with the secret search, retrieved files and tag drift the request and account give', async () => {
    expect((await json(server.url, 'POST', '/v2/policies', SCAN_POLICY)).status).toBe(200);
    // The account's image for the tag, imported with libssl3 only: the scanned SBOM adds zlib1g and requests.
    const uuid = (await json(server.url, 'POST', '/v2/imports/images', undefined)).json.uuid;
    const packages = (await json(server.url, 'POST', `/v2/imports/images/${uuid}/packages`, syftImage([deb('libssl3', '3.0.11-1~deb12u2', 'openssl')]))).json.digest;
    const imported = `sha256:${'b'.repeat(64)}`;
    const added = await json(server.url, 'POST', '/v2/images', { source: { import: { operation_uuid: uuid, digest: imported, tags: ['registry.example.com/compat/drift:1'], contents: { packages } } } });
    expect(added.status, added.text).toBe(200);
    expect(await waitForAnalysis(server, 'admin', imported)).toBe('analyzed');

    const before = await storedCounts();
    const res = await scan('tag=registry.example.com/compat/drift:1&policy_id=scan-checks', {
      sbom: SBOM,
      secret_scan: {
        media_type: 'application/vnd.anchore.secret-search+json',
        metadata: SEARCH_METADATA,
        findings: [{ location: { path: '/app/.env', layerID: DIFF_ID }, content_searches: [{ classification: 'AWS_ACCESS_KEY', line_number: 3, line_offset: 0, seek_position: 40, length: 20 }] }],
      },
      retrieved_files: { metadata: SEARCH_METADATA, findings: [{ location: { path: '/etc/passwd' }, contents: b64('root:x:0:0:root:/root:/bin/sh\ntoor:x:0:0::/:/bin/sh\n') }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(await storedCounts()).toEqual(before);
    const [evaluation] = res.json.policy_scan.evaluations;
    expect(res.json.policy_scan).toMatchObject({ policy_id: 'scan-checks', evaluated_tag: 'registry.example.com/compat/drift:1' });
    const messages = evaluation.details.findings.map((f: { rule_id: string; message: string }) => `${f.rule_id}: ${f.message}`).sort();
    expect(messages).toEqual([
      'added: Package added since the previous image: requests (python) 2.28.1',
      'added: Package added since the previous image: zlib1g (dpkg) 1:1.2.13.dfsg-1',
      'root: /etc/passwd has content matching the regex toor:',
      'secrets: The secret search found a match for AWS_ACCESS_KEY in /app/.env',
    ]);
    expect(evaluation).toMatchObject({ final_action: 'stop', evaluation_problems: [] });

    // Without the secret search, its trigger cannot be evaluated (rather than finding nothing).
    const without = await scan('tag=registry.example.com/compat/drift:1&policy_id=scan-checks', { sbom: SBOM });
    expect(without.json.policy_scan.evaluations[0].evaluation_problems).toEqual([expect.objectContaining({ problem_type: 'TriggerNotEvaluable' })]);
  });

  it('finds the analyzed images the SBOM\'s layers were built on (ancestry by the config\'s diff_ids)', async () => {
    const base = await buildImage({ layers: [[{ path: 'etc/os-release', content: 'ID=debian\nVERSION_ID=12\n' }]] });
    const upload = await raw(server.url, 'POST', '/v2/images/archives', {
      headers: { 'content-type': 'application/x-tar' },
      body: await dockerArchiveTar(base, { repoTags: ['registry.example.com/compat/base:12'] }),
    });
    expect(upload.status, upload.text).toBe(200);
    const baseDigest = upload.json.image_digest as string;
    expect(await waitForAnalysis(server, 'admin', baseDigest)).toBe('analyzed');
    const policy = {
      ...SCAN_POLICY,
      id: 'scan-ancestry',
      rule_sets: [{ id: 'rs', name: 'Ancestry', version: '2', rules: [{ id: 'no-base', gate: 'ancestry', trigger: 'denylist_ancestor_image_digest', action: 'STOP', params: [{ name: 'ancestor_digest', value: baseDigest }] }] }],
    };
    expect((await json(server.url, 'POST', '/v2/policies', policy)).status).toBe(200);
    const onBase = syftImage([PY_REQUESTS]);
    onBase.source.metadata.config = b64({ ...CONFIG, rootfs: { type: 'layers', diff_ids: [base.layers[0]!.diffId, DIFF_ID] } });
    const res = await scan('tag=registry.example.com/compat/app:1&policy_id=scan-ancestry', { sbom: onBase });
    expect(res.status, res.text).toBe(200);
    expect(res.json.policy_scan.evaluations[0].details.findings).toEqual([expect.objectContaining({ rule_id: 'no-base', message: `Ancestor image ${baseDigest} is denylisted` })]);
    // Layers no analyzed image shares: no ancestor.
    const unrelated = await scan('tag=registry.example.com/compat/app:1&policy_id=scan-ancestry', { sbom: SBOM });
    expect(unrelated.json.policy_scan.evaluations[0].details.findings).toEqual([]);
  });

  it('refuses bad input with the documented error, never a 500', async () => {
    expectValidationError(await scan('', { sbom: SBOM }), ['query.tag']);
    expectValidationError(await scan('tag=scan-me:1', {}), ['body.sbom']);
    expectValidationError(await scan('tag=scan-me:1', { sbom: 'not an object' }), ['body.sbom']);
    expectValidationError(await scan(`tag=scan-me@${MANIFEST_DIGEST}`, { sbom: SBOM }), ['query.tag']);
    expectError(await scan('tag=Not Valid', { sbom: SBOM }), 400, 'invalid_image_reference');
    expectError(await scan('tag=scan-me:1', { sbom: { hello: 'world' } }), 400);
    expectValidationError(await scan('tag=scan-me:1', { sbom: SBOM, secret_scan: { findings: [{ location: {} }] } }), [
      'body.secret_scan.findings.0.location.path',
      'body.secret_scan.findings.0.content_searches',
    ]);
    expectValidationError(await scan('tag=scan-me:1', { sbom: SBOM, retrieved_files: { findings: [{ location: { path: '/x' }, contents: 'not base64!' }] } }), [
      'body.retrieved_files.findings.0.contents',
    ]);
    const badConfig = syftImage([]);
    badConfig.source.metadata.config = b64('[1,2]');
    expectError(await scan('tag=scan-me:1', { sbom: badConfig }), 400);
    expectError(await scan('tag=scan-me:1&policy_id=no-such-policy', { sbom: SBOM }), 404, 'not_found');
    expectError(await raw(server.url, 'POST', '/v2/scan?tag=scan-me:1', { headers: { 'content-type': 'text/plain' }, body: 'x' }), 415);
    const outsider = await createUser(server.url, await createAccount(server.url, 'scan'));
    expectError(await scan('tag=scan-me:1', { sbom: SBOM }, outsider.auth), 403, 'forbidden');
  });

  it('takes upstream\'s extended_support on both scans and says it was not used', async () => {
    const res = await json(server.url, 'POST', '/v2/vulnerability-scan?extended_support=true', SBOM);
    expect(res.status, res.text).toBe(200);
    expect(res.json.extended_support).toBe(false);
    expect((await scan('tag=scan-me:1&extended_support=true', { sbom: SBOM })).json.vuln_scan.extended_support).toBe(false);
  });

  it('scans a CycloneDX SBOM too, naming the image by the SBOM id when the document names no digest', async () => {
    const cyclonedx = {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      components: [
        { type: 'operating-system', name: 'debian', version: '12' },
        { type: 'library', name: 'libssl3', version: '3.0.11-1~deb12u2', purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?upstream=openssl&distro=debian-12' },
      ],
    };
    const res = await scan('tag=registry.example.com/team/cdx:2', { sbom: cyclonedx });
    expect(res.status, res.text).toBe(200);
    expect(res.json.policy_scan.image_digest).toBe(res.json.vuln_scan.sbom_id);
    expect(res.json.vuln_scan.vulnerabilities.map((v: { vuln: string }) => v.vuln)).toEqual(['DSA-9001-1']);
    // No Dockerfile is known: the HEALTHCHECK rule has nothing to check. DSA-9001-1 is Critical and in KEV: two rules.
    expect(res.json.policy_scan.evaluations[0].details.findings.map((f: { rule_id: string }) => f.rule_id)).toEqual(['vulns-above-medium', 'known-exploited']);
  });
});

describe('POST /imports/images/{operation_id}/sbom', () => {
  const newOperation = async () => (await json(server.url, 'POST', '/v2/imports/images', undefined)).json.uuid as string;
  const uploadSbom = (uuid: string, body: unknown) => json(server.url, 'POST', `/v2/imports/images/${uuid}/sbom`, body);
  const addImport = (uuid: string, digest: string, contents: Record<string, string>) =>
    json(server.url, 'POST', '/v2/images', { source: { import: { operation_uuid: uuid, digest, tags: ['registry.example.com/compat/sbom:1'], contents } } });

  it('stores an AnchoreCTL SBOM that stands in for the packages, manifest and config of the import', async () => {
    for (const [i, contentsOf] of [(d: string) => ({ packages: d }), (d: string) => ({ packages: d, manifest: d, image_config: d })].entries()) {
      const uuid = await newOperation();
      const uploaded = await uploadSbom(uuid, SBOM);
      expect(uploaded.status, uploaded.text).toBe(200);
      expect(uploaded.json.digest).toBe(`sha256:${createHash('sha256').update(JSON.stringify(SBOM)).digest('hex')}`);
      expect(Date.parse(uploaded.json.created_at)).not.toBeNaN();

      const digest = `sha256:${String(i + 5).repeat(64)}`;
      const added = await addImport(uuid, digest, contentsOf(uploaded.json.digest));
      expect(added.status, added.text).toBe(200);
      expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
      const image = (await raw(server.url, 'GET', `/v2/images/${digest}`)).json;
      // From the manifest and config the SBOM carries in its source metadata.
      expect(image.image_content.metadata).toMatchObject({ distro: 'debian', distro_version: '12', arch: 'arm64', layer_count: 1, image_size: 5000, dockerfile_mode: 'Guessed' });
      expect(image.image_id).toBe(`sha256:${'c'.repeat(64)}`);
      const os = (await raw(server.url, 'GET', `/v2/images/${digest}/content/os`)).json.content.map((p: { package: string }) => p.package);
      expect(os.sort()).toEqual(['libssl3', 'zlib1g']);
      const dockerfile = (await raw(server.url, 'GET', `/v2/images/${digest}/metadata/dockerfile`)).json.metadata;
      expect(dockerfile).toContain('EXPOSE 22/tcp');
    }
  });

  it('refuses what cannot be read at once, and names a part the SBOM cannot stand in for', async () => {
    const uuid = await newOperation();
    expectError(await uploadSbom(uuid, { hello: 'world' }), 400);
    const badConfig = syftImage([]);
    badConfig.source.metadata.config = b64('[1,2]');
    const refused = await uploadSbom(uuid, badConfig);
    expectError(refused, 400);
    expect(refused.json.message).toContain('source.metadata.config');
    expectError(await raw(server.url, 'POST', `/v2/imports/images/${uuid}/sbom`, { headers: { 'content-type': 'text/plain' }, body: 'x' }), 415);
    expectError(await uploadSbom('00000000-0000-0000-0000-000000000000', SBOM), 404, 'not_found');

    // A CycloneDX SBOM carries no manifest: naming it as the manifest is a 400 naming the field.
    const cyclonedx = { bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, components: [{ type: 'library', name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' }] };
    const cdx = (await uploadSbom(uuid, cyclonedx)).json.digest as string;
    expectValidationError(await addImport(uuid, `sha256:${'7'.repeat(64)}`, { packages: cdx, manifest: cdx }), ['body.source.import.contents.manifest']);
    // Nor does an SBOM stand in for other parts.
    expectValidationError(await addImport(uuid, `sha256:${'7'.repeat(64)}`, { packages: cdx, secret_searches: cdx }), ['body.source.import.contents.secret_searches']);
    expect((await raw(server.url, 'GET', `/v2/images/sha256:${'7'.repeat(64)}`)).status).toBe(404);

    // An invalidated operation takes no more parts.
    expect((await raw(server.url, 'DELETE', `/v2/imports/images/${uuid}`)).status).toBe(200);
    expectError(await uploadSbom(uuid, SBOM), 409, 'conflict');
  });
});
