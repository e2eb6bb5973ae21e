/**
 * Relationships between artifacts and their SBOM diff: a source revision imported from the SBOM of the fixture
 * source tree (test/fixtures/source-tree) and an image built from the same tree (its package-lock.json and its
 * python packages installed), on Alpine with busybox and with a newer requests. The image `contains` the source;
 * the diff shows what the image adds (busybox and its advisory), what it changes (requests, whose advisory the
 * newer version no longer has) and what both share.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeArchiveImage } from '../support/analysis.js';
import { expectError, expectValidationError } from '../support/fixtures.js';
import { client, json, raw } from '../support/http.js';
import type { FileSpec } from '../support/image-builder.js';
import { createAccount, createUser, expectForbidden } from '../support/rbac-fixtures.js';
import { waitForJobsSettled } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { sourceTreeSbom } from '../support/source-sbom.js';
import { initialRecords, writeRecords } from '../vulns/fixture-feed.js';

let server: TestServer;
let work: string;
let sourceId: string;
let digest: string;

const TREE = join(import.meta.dirname, '..', 'fixtures', 'source-tree');
const SITE = 'usr/lib/python3.11/site-packages';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

const pythonPackage = (name: string, version: string): FileSpec => ({
  path: `${SITE}/${name}-${version}.dist-info/METADATA`,
  content: `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
});

/** The fixture tree built into an image: the same lock file, requests upgraded, on Alpine 3.18 with busybox. */
function imageLayers(): FileSpec[][] {
  return [
    [
      { path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.18.4\nPRETTY_NAME="Alpine Linux v3.18"\n' },
      { path: 'lib/apk/db/installed', content: 'C:Q1abc=\nP:busybox\nV:1.36.1-r1\nA:x86_64\nL:GPL-2.0-only\no:busybox\n\n' },
    ],
    [{ path: 'app/package-lock.json', content: readFileSync(join(TREE, 'package-lock.json')) }, pythonPackage('requests', '2.31.0'), pythonPackage('urllib3', '1.26.12')],
  ];
}

/** Imports the fixture tree's SBOM as a source revision (into `account` when given); answers its uuid. */
async function importSource(revision: string, account?: string): Promise<string> {
  const headers: Record<string, string> = account ? { 'x-anchore-account': account } : {};
  const post = (path: string, body: unknown) => json(server.url, 'POST', path, body, undefined, headers);
  const operation = (await post('/v2/imports/sources', undefined)).json.uuid;
  const uploaded = await post(`/v2/imports/sources/${operation}/sbom`, await sourceTreeSbom(TREE));
  expect(uploaded.status, uploaded.text).toBe(200);
  const finalized = await post(`/v2/imports/sources/${operation}/finalize`, { host: 'github.com', repository_name: 'example/service', revision, contents: { sbom: uploaded.json.digest } });
  expect(finalized.status, finalized.text).toBe(200);
  return finalized.json.uuid;
}

const imageRef = (id: string) => ({ artifact_type: 'image', artifact_id: id });
const sourceRef = (id: string) => ({ artifact_type: 'source', artifact_id: id });
const relate = (body: unknown, auth?: Parameters<typeof json>[4]) => json(server.url, 'POST', '/v2/artifact-relationships', body, auth);

/** A diff's packages as `type:name@version [vulns]` lines. */
const lines = (list: { type: string; name: string; version: string; vulnerabilities?: { vuln: string }[] }[]) =>
  list.map((p) => `${p.type}:${p.name}@${p.version}${p.vulnerabilities ? ` [${p.vulnerabilities.map((v) => v.vuln).sort().join(',')}]` : ''}`);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-relationships-'));
  writeRecords(join(work, 'osv'), initialRecords());
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  sourceId = await importSource('b'.repeat(40));
  digest = await analyzeArchiveImage(server, imageLayers(), 'example.com/example/service:1');
  await waitForJobsSettled(server, 'admin');
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('artifact relationships', () => {
  let relationshipId: string;

  it('records that the image contains the source revision, and gets and lists it', async () => {
    const created = await relate({ source: imageRef(digest), target: sourceRef(sourceId), relationship_type: 'contains', comment: 'built by CI', user_metadata: { pipeline: 42 } });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual({
      uuid: expect.any(String),
      created_at: expect.any(String),
      source: imageRef(digest),
      target: sourceRef(sourceId),
      relationship_type: 'contains',
      comment: 'built by CI',
      user_metadata: { pipeline: 42 },
    });
    relationshipId = created.json.uuid;

    const got = await client(server.url).GET('/artifact-relationships/{relationship_id}', { params: { path: { relationship_id: relationshipId } } });
    expect(got.data).toEqual(created.json);
    const listed = await client(server.url).GET('/artifact-relationships');
    expect(listed.data!.map((r) => r.uuid)).toEqual([relationshipId]);
    const byId = await client(server.url).GET('/artifact-relationships', { params: { query: { artifact_id: sourceId } } });
    expect(byId.data!.map((r) => r.uuid)).toEqual([relationshipId]);
    const byType = await client(server.url).GET('/artifact-relationships', { params: { query: { artifact_type: 'source' } } });
    expect(byType.data!.map((r) => r.uuid)).toEqual([relationshipId]);
    const other = await client(server.url).GET('/artifact-relationships', { params: { query: { artifact_id: UNKNOWN_ID } } });
    expect(other.data).toEqual([]);
  });

  it('diffs the SBOMs: what the image adds, changes and shares, with the vulnerabilities each change brings or removes', async () => {
    const res = await client(server.url).GET('/artifact-relationships/{relationship_id}/diffs/sbom', { params: { path: { relationship_id: relationshipId } } });
    expect(res.response.status).toBe(200);
    const diff = res.data!;
    expect(lines(diff.source_only)).toEqual(['apk:busybox@1.36.1-r1 [ALPINE-CVE-2099-0005]']);
    expect(lines(diff.target_only)).toEqual([]);
    expect(diff.source_modified.map((m) => ({ image: lines([m.source])[0], source: lines([m.target])[0] }))).toEqual([
      { image: 'python:requests@2.31.0 []', source: 'python:requests@2.28.1 [PYSEC-2099-6]' },
    ]);
    expect(lines(diff.both_unmodified)).toEqual(['npm:lodash@4.17.20', 'npm:ms@2.1.3', 'python:urllib3@1.26.12']);
    expect(diff.source_only[0]).toMatchObject({ location: '/lib/apk/db/installed', purl: expect.stringContaining('pkg:apk/alpine/busybox@1.36.1-r1') });
    expect(diff.source_modified[0]!.target.vulnerabilities![0]).toMatchObject({ vuln: 'PYSEC-2099-6', severity: 'Medium', fix: '2.31.0', package_name: 'requests' });
  });

  it('diffs in the relationship direction: from the source revision, the image only packages are the target only', async () => {
    const reverse = await relate({ source: sourceRef(sourceId), target: imageRef(digest), relationship_type: 'contained_by' });
    expect(reverse.status, reverse.text).toBe(200);
    const diff = (await raw(server.url, 'GET', `/v2/artifact-relationships/${reverse.json.uuid}/diffs/sbom`)).json;
    expect(lines(diff.source_only)).toEqual([]);
    expect(lines(diff.target_only)).toEqual(['apk:busybox@1.36.1-r1 [ALPINE-CVE-2099-0005]']);
    expect(lines(diff.source_modified.map((m: { source: never }) => m.source))).toEqual(['python:requests@2.28.1 [PYSEC-2099-6]']);
    const deleted = await raw(server.url, 'DELETE', `/v2/artifact-relationships?relationship_ids=${reverse.json.uuid}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toEqual({ deleted: [reverse.json.uuid] });
    expectError(await raw(server.url, 'GET', `/v2/artifact-relationships/${reverse.json.uuid}`), 404, 'not_found');
  });

  it('refuses unknown artifacts, other accounts\' artifacts, wrong types and duplicates', async () => {
    const before = (await raw(server.url, 'GET', '/v2/artifact-relationships')).json.length;
    // Unknown artifacts and relationships.
    expectError(await relate({ source: imageRef(`sha256:${'e'.repeat(64)}`), target: sourceRef(sourceId), relationship_type: 'contains' }), 404, 'not_found');
    expectError(await relate({ source: imageRef(digest), target: sourceRef(UNKNOWN_ID), relationship_type: 'contains' }), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `/v2/artifact-relationships/${UNKNOWN_ID}`), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `/v2/artifact-relationships/${UNKNOWN_ID}/diffs/sbom`), 404, 'not_found');
    // Deleting a known and an unknown id deletes neither.
    expectError(await raw(server.url, 'DELETE', `/v2/artifact-relationships?relationship_ids=${relationshipId},${UNKNOWN_ID}`), 404, 'not_found');
    expect((await raw(server.url, 'GET', `/v2/artifact-relationships/${relationshipId}`)).status).toBe(200);
    expectError(await raw(server.url, 'DELETE', '/v2/artifact-relationships'), 400, 'validation_error');

    // Another account's source revision is not this account's.
    const account = await createAccount(server.url, 'relations');
    const theirSource = await importSource('c'.repeat(40), account);
    expectError(await relate({ source: imageRef(digest), target: sourceRef(theirSource), relationship_type: 'contains' }), 404, 'not_found');

    // Wrong types and shapes.
    expectValidationError(await relate({ source: imageRef(digest), target: sourceRef(sourceId), relationship_type: 'built_from' }), ['body.relationship_type']);
    expectValidationError(await relate({ source: { artifact_type: 'package', artifact_id: 'x' }, target: sourceRef(sourceId), relationship_type: 'contains' }), ['body.source.artifact_type']);
    expectValidationError(await relate({ source: imageRef(digest), relationship_type: 'contains' }), ['body.target']);
    expectValidationError(await relate({ source: sourceRef(sourceId), target: sourceRef(sourceId), relationship_type: 'contains' }), ['body.target']);
    expectValidationError(await relate({ source: sourceRef(sourceId), target: sourceRef(theirSource), relationship_type: 'contains' }), ['body.source']);
    expectError(await raw(server.url, 'GET', '/v2/artifact-relationships?artifact_type=package'), 400, 'validation_error');

    // The same relationship twice.
    expectError(await relate({ source: imageRef(digest), target: sourceRef(sourceId), relationship_type: 'contains' }), 409, 'conflict');
    expect((await raw(server.url, 'GET', '/v2/artifact-relationships')).json.length).toBe(before);
  });

  it('keeps each account to its own relationships and needs the relationship permissions', async () => {
    const account = await createAccount(server.url, 'relations-rbac');
    const reader = await createUser(server.url, account, { roles: ['read-only'] });
    expect((await raw(server.url, 'GET', '/v2/artifact-relationships', { auth: reader.auth })).json).toEqual([]);
    expectError(await raw(server.url, 'GET', `/v2/artifact-relationships/${relationshipId}`, { auth: reader.auth }), 404, 'not_found');
    expectForbidden(await relate({ source: imageRef(digest), target: sourceRef(sourceId), relationship_type: 'contains' }, reader.auth), 'createArtifactRelationship');
    expectForbidden(await raw(server.url, 'DELETE', `/v2/artifact-relationships?relationship_ids=${relationshipId}`, { auth: reader.auth }), 'deleteArtifactRelationships');
  });
});
