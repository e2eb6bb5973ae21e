/**
 * Applications: an application with versions, an analyzed image and an imported source associated with a version,
 * the version's artifacts, vulnerabilities (both artifacts' findings) and combined SBOM, cascading deletes, and
 * bad inputs (unknown ids, another account's artifacts, duplicate names, malformed bodies).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import { accountWithUser, createAccount, expectError, expectValidationError, ISO_UTC, uniqueName } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { sourceTreeSbom } from '../support/source-sbom.js';
import { initialRecords, osvRecord, writeRecords } from '../vulns/fixture-feed.js';

let server: TestServer;
let work: string;
let imageDigest: string;
let sourceId: string;

const TREE = join(import.meta.dirname, '..', 'fixtures', 'source-tree');
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const IMAGE_ADVISORY = 'GHSA-left-pad-0041';
const SOURCE_ADVISORY = 'GHSA-lodash-0008';

async function importSource(): Promise<string> {
  const op = await json(server.url, 'POST', '/v2/imports/sources', undefined);
  expect(op.status).toBe(200);
  const upload = await json(server.url, 'POST', `/v2/imports/sources/${op.json.uuid}/sbom`, await sourceTreeSbom(TREE));
  expect(upload.status).toBe(200);
  const metadata = { host: 'github.com', repository_name: 'example/app', revision: 'b'.repeat(40), contents: { sbom: upload.json.digest } };
  const finalized = await json(server.url, 'POST', `/v2/imports/sources/${op.json.uuid}/finalize`, metadata);
  expect(finalized.status, finalized.text).toBe(200);
  return finalized.json.uuid;
}

async function createApplication(name = uniqueName('app')): Promise<string> {
  const res = await json(server.url, 'POST', '/v2/applications', { name, description: 'the shop' });
  expect(res.status, res.text).toBe(200);
  return res.json.application_id;
}

async function createVersion(applicationId: string, versionName = 'v1.0'): Promise<string> {
  const res = await json(server.url, 'POST', `/v2/applications/${applicationId}/versions`, { version_name: versionName });
  expect(res.status, res.text).toBe(200);
  return res.json.application_version_id;
}

const associate = (path: string, body: unknown, headers: Record<string, string> = {}) => json(server.url, 'POST', `${path}/artifacts`, body, undefined, headers);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-applications-'));
  writeRecords(join(work, 'osv'), { ...initialRecords(), [IMAGE_ADVISORY]: osvRecord(IMAGE_ADVISORY, 'npm', 'left-pad', [{ introduced: '0' }, { fixed: '1.3.1' }]) });
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  const layer = [{ path: 'app/node_modules/left-pad/package.json', content: JSON.stringify({ name: 'left-pad', version: '1.3.0', license: 'WTFPL' }) }];
  imageDigest = await analyzeArchiveImage(server, [layer], 'registry.example.com/shop/web:1');
  sourceId = await importSource();
}, 120_000);
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('applications and versions', () => {
  it('creates, lists, reads, updates and deletes an application with its versions', async () => {
    const name = uniqueName('shop');
    const created = await json(server.url, 'POST', '/v2/applications', { name, description: 'the shop' });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ name, description: 'the shop', application_versions: [], created_at: expect.stringMatching(ISO_UTC) });
    const id = created.json.application_id;
    const versionId = await createVersion(id, 'v1');
    const read = await raw(server.url, 'GET', `/v2/applications/${id}`);
    expect(read.json.application_versions).toMatchObject([{ application_version_id: versionId, application_id: id, version_name: 'v1' }]);
    expect((await raw(server.url, 'GET', '/v2/applications')).json.map((a: { name: string }) => a.name)).toContain(name);
    const updated = await json(server.url, 'PUT', `/v2/applications/${id}`, { name: `${name}-2` });
    expect(updated.json).toMatchObject({ name: `${name}-2`, description: 'the shop' });
    const renamed = await json(server.url, 'PUT', `/v2/applications/${id}/versions/${versionId}`, { version_name: 'v1.1' });
    expect(renamed.json).toMatchObject({ application_version_id: versionId, version_name: 'v1.1' });
    expect((await raw(server.url, 'GET', `/v2/applications/${id}/versions`)).json.map((v: { version_name: string }) => v.version_name)).toEqual(['v1.1']);
    expect((await raw(server.url, 'DELETE', `/v2/applications/${id}/versions/${versionId}`)).status).toBe(204);
    expectError(await raw(server.url, 'GET', `/v2/applications/${id}/versions/${versionId}`), 404, 'not_found');
    expect((await raw(server.url, 'DELETE', `/v2/applications/${id}`)).status).toBe(204);
    expectError(await raw(server.url, 'GET', `/v2/applications/${id}`), 404, 'not_found');
  });

  it('refuses duplicate names, unknown ids and malformed bodies', async () => {
    const name = uniqueName('dup');
    const id = await createApplication(name);
    expectError(await json(server.url, 'POST', '/v2/applications', { name }), 409, 'conflict');
    await createVersion(id, 'v1');
    expectError(await json(server.url, 'POST', `/v2/applications/${id}/versions`, { version_name: 'v1' }), 409, 'conflict');
    expectError(await raw(server.url, 'GET', `/v2/applications/${UNKNOWN_ID}`), 404, 'not_found');
    expectError(await json(server.url, 'POST', `/v2/applications/${UNKNOWN_ID}/versions`, { version_name: 'v1' }), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `/v2/applications/${id}/versions/${UNKNOWN_ID}/artifacts`), 404, 'not_found');
    expectValidationError(await json(server.url, 'POST', '/v2/applications', { description: 'no name' }), ['body.name']);
    expectValidationError(await json(server.url, 'POST', '/v2/applications', { name: '' }), ['body.name']);
    expectValidationError(await json(server.url, 'POST', `/v2/applications/${id}/versions`, {}), ['body.version_name']);
    expectError(await raw(server.url, 'GET', '/v2/applications/not-an-id'), 400, 'validation_error');
  });

  it("grants reading to read-only users and changes to read-write ones, as the account's other resources", async () => {
    const reader = await accountWithUser(server.url, ['read-only']);
    expect((await raw(server.url, 'GET', '/v2/applications', { auth: reader.auth })).status).toBe(200);
    expectError(await json(server.url, 'POST', '/v2/applications', { name: 'nope' }, reader.auth), 403, 'forbidden');
    const writer = await accountWithUser(server.url, ['read-write']);
    expect((await json(server.url, 'POST', '/v2/applications', { name: 'theirs' }, writer.auth)).status).toBe(200);
  });

  it('keeps applications apart per account', async () => {
    const id = await createApplication();
    const other = await createAccount(server.url);
    expectError(await raw(server.url, 'GET', `/v2/applications/${id}`, { headers: { 'x-anchore-account': other.name } }), 404, 'not_found');
  });
});

describe('artifacts of a version', () => {
  let applicationId: string;
  let versionPath: string;

  beforeAll(async () => {
    applicationId = await createApplication();
    versionPath = `/v2/applications/${applicationId}/versions/${await createVersion(applicationId)}`;
  });

  it('associates an analyzed image and an imported source, and lists them', async () => {
    const image = await associate(versionPath, { artifact_type: 'image', artifact_keys: { image_digest: imageDigest } });
    expect(image.status, image.text).toBe(200);
    expect(image.json).toMatchObject({ artifact_type: 'image', artifact_keys: { image_digest: imageDigest }, artifact_association_metadata: { association_id: expect.any(String) } });
    const source = await associate(versionPath, { artifact_type: 'source', artifact_keys: { source_id: sourceId } });
    expect(source.status, source.text).toBe(200);
    const list = await raw(server.url, 'GET', `${versionPath}/artifacts`);
    expect(list.status).toBe(200);
    expect(list.json.associated_image_artifacts).toMatchObject([{ image: { image_digest: imageDigest, analysis_status: 'analyzed' } }]);
    expect(list.json.associated_source_artifacts).toMatchObject([{ source: { uuid: sourceId, repository_name: 'example/app' } }]);
    expectError(await associate(versionPath, { artifact_type: 'image', artifact_keys: { image_digest: imageDigest } }), 409, 'conflict');
  });

  it("answers the version's vulnerabilities: both artifacts' findings", async () => {
    const res = await raw(server.url, 'GET', `${versionPath}/vulnerabilities`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.application).toMatchObject({ id: applicationId, version_name: 'v1.0', artifacts: { images: [{ image_digest: imageDigest }], sources: [{ uuid: sourceId }] } });
    const byId = new Map(res.json.vulnerabilities.map((v: { id: string }) => [v.id, v]));
    expect(byId.get(IMAGE_ADVISORY)).toMatchObject({ matches: [{ fix: '1.3.1', location: { artifact_type: 'image', artifact_id: imageDigest, package_name: 'left-pad' } }] });
    expect(byId.get(SOURCE_ADVISORY)).toMatchObject({ matches: [{ location: { artifact_type: 'source', artifact_id: sourceId, package_name: 'lodash' } }] });
  });

  it("answers one SBOM of the artifacts' packages, filtered by artifact type", async () => {
    const names = async (query = '') => {
      const res = await raw(server.url, 'GET', `${versionPath}/sboms/native-json${query}`);
      expect(res.status, res.text).toBe(200);
      return new Set(res.json.artifacts.map((a: { name: string }) => a.name));
    };
    const all = await names();
    expect(all.has('left-pad') && all.has('lodash')).toBe(true);
    const images = await names('?artifact_types=image');
    expect(images.has('left-pad') && !images.has('lodash')).toBe(true);
  });

  it("refuses another account's artifacts, unknown artifacts and malformed association requests", async () => {
    const other = await createAccount(server.url);
    const headers = { 'x-anchore-account': other.name };
    const otherApp = (await json(server.url, 'POST', '/v2/applications', { name: 'theirs' }, undefined, headers)).json.application_id;
    const otherVersion = (await json(server.url, 'POST', `/v2/applications/${otherApp}/versions`, { version_name: 'v1' }, undefined, headers)).json.application_version_id;
    const otherPath = `/v2/applications/${otherApp}/versions/${otherVersion}`;
    expectError(await associate(otherPath, { artifact_type: 'image', artifact_keys: { image_digest: imageDigest } }, headers), 404, 'not_found');
    expectError(await associate(otherPath, { artifact_type: 'source', artifact_keys: { source_id: sourceId } }, headers), 404, 'not_found');
    expectError(await associate(versionPath, { artifact_type: 'source', artifact_keys: { source_id: UNKNOWN_ID } }), 404, 'not_found');
    expectError(await associate(versionPath, { artifact_type: 'image', artifact_keys: { source_id: sourceId } }), 400);
    expectValidationError(await associate(versionPath, { artifact_type: 'package', artifact_keys: {} }), ['body.artifact_type']);
    expectValidationError(await associate(versionPath, { artifact_type: 'image' }), ['body.artifact_keys']);
    expectError(await raw(server.url, 'DELETE', `${versionPath}/artifacts/${UNKNOWN_ID}`), 404, 'not_found');
  });

  it('removes an association, and deleting the application cascades to its versions and associations', async () => {
    const list = await raw(server.url, 'GET', `${versionPath}/artifacts`);
    const associationId = list.json.associated_source_artifacts[0].artifact_association_metadata.association_id;
    expect((await raw(server.url, 'DELETE', `${versionPath}/artifacts/${associationId}`)).status).toBe(204);
    expect((await raw(server.url, 'GET', `${versionPath}/artifacts`)).json.associated_source_artifacts).toEqual([]);
    expect((await raw(server.url, 'DELETE', `/v2/applications/${applicationId}`)).status).toBe(204);
    expectError(await raw(server.url, 'GET', `${versionPath}/artifacts`), 404, 'not_found');
    const rows = await server.running.services.db('application_artifacts').count({ n: '*' }).first();
    expect(Number(rows?.n)).toBe(0);
    // The artifacts themselves are kept.
    expect((await raw(server.url, 'GET', `/v2/images/${imageDigest}`)).status).toBe(200);
    expect((await raw(server.url, 'GET', `/v2/sources/${sourceId}`)).status).toBe(200);
  });
});
