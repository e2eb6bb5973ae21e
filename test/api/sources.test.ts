/**
 * Source repositories imported from SBOMs: the import flow (operation, SBOM upload, finalize), the source
 * records, their content, SBOM exports, vulnerabilities (matched like an image's, re-matched on feed change) and
 * policy check. The SBOM is generated from the source tree in test/fixtures/source-tree (a package-lock.json and a
 * requirements.txt) by the project's own catalogers (test/support/source-sbom.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectValidationError, uniqueName } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { sourceTreeSbom } from '../support/source-sbom.js';
import { initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

let server: TestServer;
let work: string;
let osvDir: string;
let sbom: Record<string, unknown>;
let sourceId: string;

const TREE = join(import.meta.dirname, '..', 'fixtures', 'source-tree');
const METADATA = { host: 'github.com', repository_name: 'example/service', revision: 'a'.repeat(40), branch_name: 'main', change_author: 'dev@example.com' };
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

async function syncNow() {
  const res = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('done');
  return res.json;
}

async function newOperation(): Promise<string> {
  const res = await json(server.url, 'POST', '/v2/imports/sources', undefined);
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ status: 'pending', uuid: expect.any(String), expires_at: expect.any(String) });
  return res.json.uuid;
}

async function upload(uuid: string, document: unknown): Promise<string> {
  const res = await json(server.url, 'POST', `/v2/imports/sources/${uuid}/sbom`, document);
  expect(res.status).toBe(200);
  return res.json.digest;
}

/** Imports a document as a source revision; answers the finalize response. */
async function importSource(document: unknown, metadata: Record<string, unknown> = METADATA) {
  const uuid = await newOperation();
  const digest = await upload(uuid, document);
  const res = await json(server.url, 'POST', `/v2/imports/sources/${uuid}/finalize`, { ...metadata, contents: { sbom: digest } });
  expect(res.status).toBe(200);
  return { uuid, digest, source: res.json };
}

async function vulns(id: string, type = 'all') {
  const res = await raw(server.url, 'GET', `/v2/sources/${id}/vuln/${type}`);
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ source_id: id, vulnerability_type: type });
  return (res.json.vulnerabilities as { vuln: string; package_name: string; severity: string; fix: string }[]).map((v) => `${v.vuln} ${v.package_name} ${v.severity} fix=${v.fix}`).sort();
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-sources-'));
  osvDir = join(work, 'osv');
  writeRecords(osvDir, initialRecords());
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${osvDir}` });
  await syncNow();
  sbom = await sourceTreeSbom(TREE);
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('source import', () => {
  it('imports the SBOM of a source tree: operation, upload, finalize into a source record with its metadata', async () => {
    const uuid = await newOperation();
    expect((await raw(server.url, 'GET', '/v2/imports/sources')).json.map((o: { uuid: string }) => o.uuid)).toContain(uuid);
    expectError(await raw(server.url, 'GET', `/v2/imports/sources/${uuid}/sbom`), 404, 'not_found');
    const digest = await upload(uuid, sbom);
    expect((await raw(server.url, 'GET', `/v2/imports/sources/${uuid}/sbom`)).json).toEqual({ digest, created_at: expect.any(String) });

    const finalized = await json(server.url, 'POST', `/v2/imports/sources/${uuid}/finalize`, { ...METADATA, ci_workflow_name: 'build', contents: { sbom: digest } });
    expect(finalized.status).toBe(200);
    sourceId = finalized.json.uuid;
    expect(finalized.json).toMatchObject({
      account_name: 'admin',
      vcs_type: 'git',
      host: 'github.com',
      repository_name: 'example/service',
      revision: METADATA.revision,
      analysis_status: 'analyzed',
      source_status: 'active',
      metadata_records: [{ uuid: expect.any(String), ci_workflow_name: 'build', branch_name: 'main', change_author: 'dev@example.com', ci_workflow_execution_time: null }],
    });
    expect((await raw(server.url, 'GET', `/v2/imports/sources/${uuid}`)).json.status).toBe('complete');
    // Image imports and source imports are kept apart.
    expectError(await raw(server.url, 'GET', `/v2/imports/images/${uuid}`), 404, 'not_found');

    const listed = await raw(server.url, 'GET', '/v2/sources');
    expect(listed.status).toBe(200);
    expect(listed.json.items).toEqual([expect.objectContaining({ uuid: sourceId, host: 'github.com', analysis_status: 'analyzed' })]);
    expect((await raw(server.url, 'GET', `/v2/sources/${sourceId}`)).json).toMatchObject({ uuid: sourceId, metadata_records: [expect.anything()] });
    const events = await raw(server.url, 'GET', '/v2/events?event_type=user.source.analysis.completed');
    expect(events.json.results.map((e: { event: { resource: { id: string } } }) => e.event.resource.id)).toContain(sourceId);
  });

  it('lists the packages of the tree by content type', async () => {
    expect((await raw(server.url, 'GET', `/v2/sources/${sourceId}/content`)).json).toEqual(expect.arrayContaining(['os', 'npm', 'python']));
    const summary = (await raw(server.url, 'GET', `/v2/sources/${sourceId}/content-summary`)).json.items;
    const counts = Object.fromEntries(summary.map((i: { content_type: string; count: number }) => [i.content_type, i.count]));
    expect(counts).toMatchObject({ npm: 2, python: 2, os: 0 });
    const npm = await raw(server.url, 'GET', `/v2/sources/${sourceId}/content/npm`);
    expect(npm.json).toMatchObject({ source_id: sourceId, content_type: 'npm' });
    expect(npm.json.content.map((p: { package: string; version: string; location: string }) => `${p.package}@${p.version} ${p.location}`)).toEqual([
      'lodash@4.17.20 /package-lock.json',
      'ms@2.1.3 /package-lock.json',
    ]);
  });

  it('matches the packages like an image: lodash (npm) and requests (PyPI) from the fixture feed', async () => {
    expect((await raw(server.url, 'GET', `/v2/sources/${sourceId}/vuln`)).json).toEqual(['os', 'non-os', 'all']);
    expect(await vulns(sourceId)).toEqual(['GHSA-lodash-0008 lodash High fix=4.17.21', 'PYSEC-2099-6 requests Medium fix=2.31.0']);
    expect(await vulns(sourceId, 'os')).toEqual([]);
    expect(await vulns(sourceId, 'non-os')).toHaveLength(2);
  });

  it('exports the SBOM as native (a directory source), CycloneDX and SPDX JSON', async () => {
    const native = (await raw(server.url, 'GET', `/v2/sources/${sourceId}/sbom/native-json`)).json;
    expect(native.source).toMatchObject({ type: 'directory', name: 'github.com/example/service', version: METADATA.revision });
    expect(native.artifacts.map((a: { name: string }) => a.name).sort()).toEqual(['lodash', 'ms', 'requests', 'urllib3']);
    const cdx = (await raw(server.url, 'GET', `/v2/sources/${sourceId}/sbom/cyclonedx-json`)).json;
    expect(cdx.bomFormat).toBe('CycloneDX');
    expect(cdx.components.map((c: { purl: string }) => c.purl)).toEqual(expect.arrayContaining(['pkg:npm/lodash@4.17.20', 'pkg:pypi/requests@2.28.1']));
    const spdx = (await raw(server.url, 'GET', `/v2/sources/${sourceId}/sbom/spdx-json`)).json;
    expect(spdx.spdxVersion).toBe('SPDX-2.3');
    expect(spdx.packages.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['lodash', 'ms', 'requests', 'urllib3']));
  });
});

describe('source policy check', () => {
  const policy = (id: string, sourceMappings: unknown[]) => ({
    id,
    name: id,
    version: '2',
    rule_sets: [
      { id: 'image-rules', name: 'Images', version: '2', artifact_type: 'image', rules: [] },
      {
        id: 'source-rules',
        name: 'Sources',
        version: '2',
        artifact_type: 'source',
        rules: [
          { id: 'high-vulns', gate: 'vulnerabilities', trigger: 'package', action: 'STOP', params: [{ name: 'package_type', value: 'all' }, { name: 'severity_comparison', value: '>=' }, { name: 'severity', value: 'high' }] },
          { id: 'no-root', gate: 'dockerfile', trigger: 'effective_user', action: 'WARN', params: [{ name: 'users', value: 'root' }, { name: 'type', value: 'blacklist' }] },
        ],
      },
    ],
    allowlists: [],
    mappings: [{ id: 'all-images', name: 'All', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['image-rules'], allowlist_ids: [] }],
    source_mappings: sourceMappings,
  });

  it('evaluates the rule sets the first matching source mapping selects, with only the gates that apply to sources', async () => {
    const created = await json(server.url, 'POST', '/v2/policies', policy('sources', [{ id: 'gh', name: 'GitHub', host: 'github.com', repository: 'example/*', rule_set_ids: ['source-rules'], allowlist_ids: [] }]));
    expect(created.status, created.text).toBe(200);
    const res = await raw(server.url, 'GET', `/v2/sources/${sourceId}/check?policy_id=sources`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ source_id: sourceId, host: 'github.com', source_mapped_to_rule: true, final_action: 'stop', status: 'fail', final_action_reason: 'policy_evaluation' });
    expect(res.json.findings).toEqual([expect.objectContaining({ gate: 'vulnerabilities', trigger: 'package', action: 'stop', rule_id: 'high-vulns', trigger_id: expect.stringContaining('GHSA-lodash-0008') })]);
    expect(res.json.evaluation_problems).toEqual([expect.objectContaining({ problem_type: 'GateNotApplicable', details: expect.stringContaining('dockerfile') })]);
  });

  it('passes unmapped when no source mapping matches; 404 for an unknown policy', async () => {
    expect((await json(server.url, 'POST', '/v2/policies', policy('elsewhere', [{ id: 'gl', name: 'GitLab', host: 'gitlab.com', repository: '*', rule_set_ids: ['source-rules'] }]))).status).toBe(200);
    const res = await raw(server.url, 'GET', `/v2/sources/${sourceId}/check?policy_id=elsewhere`);
    expect(res.json).toMatchObject({ source_mapped_to_rule: false, matched_mapping_rule: null, final_action: 'go', status: 'pass', findings: [] });
    expectError(await raw(server.url, 'GET', `/v2/sources/${sourceId}/check?policy_id=nope`), 404, 'not_found');
  });

  it('refuses a source mapping that names a rule set the policy does not have', async () => {
    const res = await json(server.url, 'POST', '/v2/policies', policy('broken', [{ id: 'x', name: 'x', host: '*', repository: '*', rule_set_ids: ['missing'] }]));
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('source_mappings[0].rule_set_ids[0]');
  });
});

describe('source re-match and re-import', () => {
  it('re-matches the source when the feed changes and records a vulnerabilities update event', async () => {
    writeFileSync(join(osvDir, 'GHSA-ms-0011.json'), JSON.stringify(osvRecord('GHSA-ms-0011', 'npm', 'ms', [{ introduced: '0' }, { fixed: '2.1.4' }], { databaseSpecific: { severity: 'LOW' } })));
    const synced = await syncNow();
    expect(synced.rematch).toMatchObject({ images: 0, sources: 1, changed_sources: 1, added: 1 });
    expect(await vulns(sourceId)).toContain('GHSA-ms-0011 ms Low fix=2.1.4');
    const events = await raw(server.url, 'GET', '/v2/events?event_type=user.source.vulnerabilities.update');
    const event = events.json.results.find((e: { event: { resource: { id: string } } }) => e.event.resource.id === sourceId);
    expect(event.event.details.diff_vulnerability_result.added).toEqual([expect.objectContaining({ vuln: 'GHSA-ms-0011', package_name: 'ms' })]);
  });

  it('imports the same revision again into the same record: new packages, another metadata record', async () => {
    const withoutLodash = { ...sbom, artifacts: (sbom.artifacts as { name: string }[]).filter((a) => a.name !== 'lodash') };
    const { source } = await importSource(withoutLodash, { ...METADATA, branch_name: 'release' });
    expect(source.uuid).toBe(sourceId);
    expect(source.metadata_records.map((r: { branch_name: string }) => r.branch_name)).toEqual(['main', 'release']);
    expect((await vulns(sourceId)).some((v) => v.startsWith('GHSA-lodash-0008'))).toBe(false);
  });

  it('imports CycloneDX and SPDX documents as other revisions', async () => {
    const cdx = (await raw(server.url, 'GET', `/v2/sources/${sourceId}/sbom/cyclonedx-json`)).json;
    const fromCdx = await importSource(cdx, { ...METADATA, revision: 'b'.repeat(40) });
    expect(fromCdx.source.uuid).not.toBe(sourceId);
    expect(await vulns(fromCdx.source.uuid)).toContain('PYSEC-2099-6 requests Medium fix=2.31.0');
    const spdx = (await raw(server.url, 'GET', `/v2/sources/${sourceId}/sbom/spdx-json`)).json;
    const fromSpdx = await importSource(spdx, { ...METADATA, revision: 'c'.repeat(40) });
    expect(await vulns(fromSpdx.source.uuid)).toContain('GHSA-ms-0011 ms Low fix=2.1.4');
  });
});

describe('bad input', () => {
  it('refuses a malformed SBOM at upload, and a finalize naming no uploaded SBOM', async () => {
    const uuid = await newOperation();
    expectError(await json(server.url, 'POST', `/v2/imports/sources/${uuid}/sbom`, { hello: 'world' }), 400);
    expectError(await json(server.url, 'POST', `/v2/imports/sources/${uuid}/sbom`, { artifacts: 'nope', descriptor: { name: 'syft' } }), 400);
    const res = await json(server.url, 'POST', `/v2/imports/sources/${uuid}/finalize`, { ...METADATA, contents: { sbom: `sha256:${'f'.repeat(64)}` } });
    expectValidationError(res, ['body.contents.sbom']);
    expectValidationError(await json(server.url, 'POST', `/v2/imports/sources/${uuid}/finalize`, { host: 'github.com', contents: { sbom: 'x' } }), [
      'body.repository_name',
      'body.revision',
      'body.contents.sbom',
    ]);
    expect((await raw(server.url, 'GET', `/v2/imports/sources/${uuid}`)).json.status).toBe('pending');
  });

  it('finalizes an operation once; an invalidated one not at all', async () => {
    const { uuid, digest } = await importSource(sbom, { ...METADATA, revision: 'd'.repeat(40) });
    expectError(await json(server.url, 'POST', `/v2/imports/sources/${uuid}/finalize`, { ...METADATA, contents: { sbom: digest } }), 409, 'conflict');
    expectError(await json(server.url, 'POST', `/v2/imports/sources/${uuid}/sbom`, sbom), 409, 'conflict');
    const other = await newOperation();
    const otherDigest = await upload(other, sbom);
    expect((await raw(server.url, 'DELETE', `/v2/imports/sources/${other}`)).json.status).toBe('expired');
    expectError(await json(server.url, 'POST', `/v2/imports/sources/${other}/finalize`, { ...METADATA, contents: { sbom: otherDigest } }), 409, 'conflict');
  });

  it('answers 404 for unknown operations and sources, and for an image import operation used as a source one', async () => {
    expectError(await raw(server.url, 'GET', `/v2/imports/sources/${UNKNOWN_ID}`), 404, 'not_found');
    expectError(await json(server.url, 'POST', `/v2/imports/sources/${UNKNOWN_ID}/sbom`, sbom), 404, 'not_found');
    const imageOp = await json(server.url, 'POST', '/v2/imports/images', undefined);
    expectError(await json(server.url, 'POST', `/v2/imports/sources/${imageOp.json.uuid}/finalize`, { ...METADATA, contents: { sbom: `sha256:${'f'.repeat(64)}` } }), 404, 'not_found');
    for (const path of ['', '/content', '/content-summary', '/content/npm', '/vuln', '/vuln/all', '/check', '/sbom/native-json', '/sbom/cyclonedx-json', '/sbom/spdx-json'])
      expectError(await raw(server.url, 'GET', `/v2/sources/${UNKNOWN_ID}${path}`), 404, 'not_found');
    expectError(await raw(server.url, 'DELETE', `/v2/sources/${UNKNOWN_ID}`), 404, 'not_found');
    expectValidationError(await raw(server.url, 'GET', '/v2/sources/not-a-uuid'), ['path.source_id']);
    expectValidationError(await raw(server.url, 'GET', `/v2/sources/${sourceId}/vuln/everything`), ['path.vuln_type']);
  });

  it("keeps each account's sources and source imports to itself", async () => {
    const other = uniqueName('src');
    expect((await json(server.url, 'POST', '/v2/accounts', { name: other })).status).toBe(200);
    const as = { headers: { 'x-service-account': other } };
    expect((await raw(server.url, 'GET', '/v2/sources', as)).json.items).toEqual([]);
    expectError(await raw(server.url, 'GET', `/v2/sources/${sourceId}`, as), 404, 'not_found');
    expectError(await raw(server.url, 'DELETE', `/v2/sources/${sourceId}`, as), 404, 'not_found');
    const mine = await newOperation();
    expectError(await raw(server.url, 'GET', `/v2/imports/sources/${mine}`, as), 404, 'not_found');
    expect((await raw(server.url, 'GET', '/v2/imports/sources', as)).json).toEqual([]);
  });

  it('deletes a source with its packages and findings', async () => {
    const { source } = await importSource(sbom, { ...METADATA, revision: 'e'.repeat(40) });
    const deleted = await raw(server.url, 'DELETE', `/v2/sources/${source.uuid}?force=true`);
    expect(deleted.status).toBe(204);
    expectError(await raw(server.url, 'GET', `/v2/sources/${source.uuid}`), 404, 'not_found');
    expect((await raw(server.url, 'GET', '/v2/sources')).json.items.map((s: { uuid: string }) => s.uuid)).not.toContain(source.uuid);
  });
});
