/**
 * The analysis archive: an analyzed image (Alpine 3.18 with busybox, which the fixture feed's advisory matches) is
 * archived, listed, restored with `POST /images` and an archive source (the same packages, findings and policy
 * evaluations, no registry involved), and deleted; an archive rule run by the periodic job moves old images of the
 * selected repositories into the archive and a delete rule removes them from it; bad inputs answer as upstream.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARCHIVE_RULES_JOB } from '../../src/archive/transitions.js';
import { databaseKind } from '../../src/db/index.js';
import { runPeriodicSoon } from '../../src/jobs/periodic.js';
import type { JobFinished } from '../../src/jobs/worker.js';
import { analyzeArchiveImage, imageFindingLines, storedUploadCounts } from '../support/analysis.js';
import { expectValidationError } from '../support/fixtures.js';
import { client, json, raw } from '../support/http.js';
import type { FileSpec } from '../support/image-builder.js';
import { insertImageRow } from '../support/image-rows.js';
import { createAccount, createUser, expectForbidden, expectNotFound } from '../support/rbac-fixtures.js';
import { waitForJobsSettled } from '../support/registry-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { initialRecords, writeRecords } from '../vulns/fixture-feed.js';

let server: TestServer;
let work: string;
let app1: string;
let app2: string;
let other: string;

const UNKNOWN = `sha256:${'0'.repeat(64)}`;
const DAY_MS = 86_400_000;

function alpineLayers(marker: string): FileSpec[][] {
  return [
    [
      { path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.18.4\nPRETTY_NAME="Alpine Linux v3.18"\n' },
      { path: 'lib/apk/db/installed', content: 'C:Q1abc=\nP:busybox\nV:1.36.1-r1\nA:x86_64\nL:GPL-2.0-only\no:busybox\n\n' },
      { path: 'etc/marker', content: marker },
    ],
  ];
}

const db = () => server.running.services.db;
const post = (path: string, body: unknown, auth?: Parameters<typeof json>[4]) => json(server.url, 'POST', path, body, auth);
const archive = (digests: unknown, auth?: Parameters<typeof json>[4]) => post('/v2/archives/images', digests, auth);
const restore = (digest: string) => post('/v2/images', { source: { archive: { digest } } });
const policyEvaluations = async (digest: string) => Number((await db()('policy_evaluations').where({ image_digest: digest }).count({ n: '*' }).first())?.n ?? 0);

/** Runs the archive-rules job now and resolves once that run has finished. */
async function runArchiveRules(): Promise<JobFinished> {
  const { worker, jobs } = server.running.services;
  const finished = new Promise<JobFinished>((resolve) => {
    const onFinished = (f: JobFinished) => {
      if (f.kind !== ARCHIVE_RULES_JOB.kind) return;
      worker.off('finished', onFinished);
      resolve(f);
    };
    worker.on('finished', onFinished);
  });
  await runPeriodicSoon(jobs, ARCHIVE_RULES_JOB);
  worker.wake();
  return finished;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-archives-'));
  writeRecords(join(work, 'osv'), initialRecords());
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  app1 = await analyzeArchiveImage(server, alpineLayers('one'), 'example.com/team/app:1');
  app2 = await analyzeArchiveImage(server, alpineLayers('two'), 'example.com/team/app:2');
  other = await analyzeArchiveImage(server, alpineLayers('three'), 'example.com/other/svc:1');
  await waitForJobsSettled(server, 'admin');
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('archiving, restoring and deleting an analysis', () => {
  let packages: unknown;
  let findings: string[];
  let evaluations: number;

  it('archives an analyzed image, which stays in the working set, and lists, gets and summarizes it', async () => {
    const check = await raw(server.url, 'GET', `/v2/images/${app1}/check?tag=example.com/team/app:1`);
    expect(check.status, check.text).toBe(200);
    packages = (await client(server.url).GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: app1, content_type: 'os' } } })).data;
    findings = await imageFindingLines(server, app1);
    expect(findings).toEqual([expect.stringMatching(/^ALPINE-CVE-2099-0005 \S+:busybox/)]);
    evaluations = await policyEvaluations(app1);
    expect(evaluations).toBeGreaterThan(0);
    const uploadsBefore = await storedUploadCounts(server);

    const archived = await client(server.url).POST('/archives/images', { body: [app1] });
    expect(archived.response.status).toBe(200);
    expect(archived.data).toEqual([{ digest: app1, status: 'archived' }]);
    expect((await raw(server.url, 'GET', `/v2/images/${app1}`)).status).toBe(200);
    expect((await storedUploadCounts(server)).uploads).toBe(uploadsBefore.uploads + 1);

    const got = await client(server.url).GET('/archives/images/{image_digest}', { params: { path: { image_digest: app1 } } });
    expect(got.data).toEqual({
      imageDigest: app1,
      annotations: {},
      status: 'archived',
      image_detail: [{ full_tag: 'example.com/team/app:1', registry: 'example.com', repo: 'team/app', tag: '1', tag_detected_at: expect.any(String) }],
      created_at: expect.any(String),
      last_updated: expect.any(String),
      analyzed_at: expect.any(String),
      archive_size_bytes: expect.any(Number),
    });
    expect(got.data!.archive_size_bytes).toBeGreaterThan(0);
    const listed = await client(server.url).GET('/archives/images');
    expect(listed.data).toEqual([got.data]);
    const summary = await client(server.url).GET('/archives');
    expect(summary.data).toEqual({ images: { total_image_count: 1, total_tag_count: 1, total_data_bytes: got.data!.archive_size_bytes, last_updated: got.data!.last_updated } });
  });

  it('archives the same image again without change', async () => {
    const again = await archive([app1]);
    expect(again.json).toEqual([{ digest: app1, status: 'archived', detail: expect.stringContaining('already archived') }]);
    expect((await client(server.url).GET('/archives/images')).data).toHaveLength(1);
  });

  it('restores the archived analysis with POST /images: the same packages, findings and evaluations, no registry', async () => {
    expect((await raw(server.url, 'DELETE', `/v2/images/${app1}`)).status).toBe(200);
    expect((await raw(server.url, 'GET', `/v2/images/${app1}`)).status).toBe(404);

    const restored = await client(server.url).POST('/images', { body: { source: { archive: { digest: app1 } } } });
    expect(restored.response.status).toBe(200);
    expect(restored.data).toMatchObject({ image_digest: app1, analysis_status: 'analyzed', image_status: 'active' });
    expect(restored.data!.image_detail!.map((d) => d.full_tag)).toEqual(['example.com/team/app:1']);
    const content = await client(server.url).GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: app1, content_type: 'os' } } });
    expect(content.data).toEqual(packages);
    expect(await imageFindingLines(server, app1)).toEqual(findings);
    expect(await policyEvaluations(app1)).toBe(evaluations);

    // Restoring what the working set already holds answers the image as it is.
    const again = await restore(app1);
    expect(again.status, again.text).toBe(200);
    expect(again.json.image_digest).toBe(app1);
    expect((await client(server.url).GET('/archives/images/{image_digest}', { params: { path: { image_digest: app1 } } })).data!.status).toBe('archived');
  });

  it('deletes the archived analysis and its content, leaving the working-set image alone', async () => {
    const before = await storedUploadCounts(server);
    const deleted = await raw(server.url, 'DELETE', `/v2/archives/images/${app1}`);
    expect(deleted.status, deleted.text).toBe(200);
    expectNotFound(await raw(server.url, 'GET', `/v2/archives/images/${app1}`));
    expectNotFound(await raw(server.url, 'DELETE', `/v2/archives/images/${app1}`));
    expect((await storedUploadCounts(server)).uploads).toBe(before.uploads - 1);
    expect((await raw(server.url, 'GET', `/v2/images/${app1}`)).status).toBe(200);
    expect((await client(server.url).GET('/archives')).data).toEqual({ images: { total_image_count: 0, total_tag_count: 0, total_data_bytes: 0 } });
  });
});

describe('archive transition rules', () => {
  it('an archive rule run by the periodic job moves old images of the selected repositories, and records it', async () => {
    const rule = await post('/v2/archives/rules', { transition: 'archive', analysis_age_days: 5, selector: { registry: 'example.com', repository: 'team/*' } });
    expect(rule.status, rule.text).toBe(200);
    expect(rule.json).toEqual({
      rule_id: expect.any(String),
      transition: 'archive',
      selector: { registry: 'example.com', repository: 'team/*' },
      tag_versions_newer: 0,
      analysis_age_days: 5,
      system_global: false,
      created_at: expect.any(String),
      last_updated: expect.any(String),
    });
    const got = await client(server.url).GET('/archives/rules/{rule_id}', { params: { path: { rule_id: rule.json.rule_id } } });
    expect(got.data).toEqual(rule.json);
    expect((await client(server.url).GET('/archives/rules')).data).toEqual([rule.json]);

    // app2 and other were analyzed ten days ago; app1 just now. Only app2 is both old and selected.
    const tenDaysAgo = new Date(Date.now() - 10 * DAY_MS).toISOString();
    await db()('images').whereIn('image_digest', [app2, other]).update({ analyzed_at: tenDaysAgo });
    const run = await runArchiveRules();
    expect(run.status).toBe('done');

    expect((await raw(server.url, 'GET', `/v2/images/${app2}`)).status).toBe(404);
    expect((await raw(server.url, 'GET', `/v2/images/${other}`)).status).toBe(200);
    expect((await raw(server.url, 'GET', `/v2/images/${app1}`)).status).toBe(200);
    expect((await client(server.url).GET('/archives/images')).data!.map((a) => a.imageDigest)).toEqual([app2]);
    const events = await raw(server.url, 'GET', '/v2/events?event_type=user.analysis_archive.rule_applied');
    expect(events.json.results.map((e: any) => e.event.details)).toEqual([{ rule_id: rule.json.rule_id, transition: 'archive', image_digests: [app2] }]);

    // A second run finds nothing more to move.
    await runArchiveRules();
    expect((await raw(server.url, 'GET', '/v2/events?event_type=user.analysis_archive.rule_applied')).json.results).toHaveLength(1);
    expect((await raw(server.url, 'DELETE', `/v2/archives/rules/${rule.json.rule_id}`)).status).toBe(200);
    expectNotFound(await raw(server.url, 'GET', `/v2/archives/rules/${rule.json.rule_id}`));
  });

  it('a delete rule removes old archived analyses', async () => {
    const rule = await post('/v2/archives/rules', { transition: 'delete', analysis_age_days: 5 });
    expect(rule.status, rule.text).toBe(200);
    await runArchiveRules();
    expect((await client(server.url).GET('/archives/images')).data).toEqual([]);
    expect((await raw(server.url, 'DELETE', `/v2/archives/rules/${rule.json.rule_id}`)).status).toBe(200);
  });
});

describe('bad inputs', () => {
  it('answers an error result for an image that is unknown or not analyzed', async () => {
    const pending = `sha256:${'a'.repeat(64)}`;
    await insertImageRow(db(), 'admin', pending, 'analyzing');
    const res = await archive([UNKNOWN, pending]);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual([
      { digest: UNKNOWN, status: 'error', detail: 'no such image in this account' },
      { digest: pending, status: 'error', detail: expect.stringContaining('not analyzed') },
    ]);
    expect((await client(server.url).GET('/archives/images')).data).toEqual([]);
  });

  it('refuses malformed digest lists', async () => {
    expectValidationError(await archive([]), ['body']);
    expectValidationError(await archive(['latest']), ['body.0']);
    expectValidationError(await archive(Array.from({ length: 101 }, (_, i) => `sha256:${i.toString(16).padStart(64, '0')}`)), ['body']);
  });

  it('answers 404 for an unknown archived analysis, to get, delete or restore', async () => {
    expectNotFound(await raw(server.url, 'GET', `/v2/archives/images/${UNKNOWN}`));
    expectNotFound(await raw(server.url, 'DELETE', `/v2/archives/images/${UNKNOWN}`));
    expectNotFound(await restore(UNKNOWN));
    expectValidationError(await post('/v2/images', { source: { archive: {} } }), ['body.source.archive.digest']);
  });

  it('refuses malformed rules and global rules from non-administrators', async () => {
    expectValidationError(await post('/v2/archives/rules', { analysis_age_days: 1 }), ['body.transition']);
    expectValidationError(await post('/v2/archives/rules', { transition: 'move' }), ['body.transition']);
    expectValidationError(await post('/v2/archives/rules', { transition: 'archive', analysis_age_days: -1 }), ['body.analysis_age_days']);
    expectValidationError(await post('/v2/archives/rules', { transition: 'archive', max_images_per_account: 10 }), ['body.max_images_per_account']);
    expectNotFound(await raw(server.url, 'GET', '/v2/archives/rules/00000000-0000-4000-8000-000000000000'));

    const account = await createAccount(server.url, 'archives');
    const owner = await createUser(server.url, account, { roles: ['read-write'] });
    expectForbidden(await post('/v2/archives/rules', { transition: 'archive', system_global: true }, owner.auth));
    // A global rule (administrators only) is seen by every account and deleted only by an administrator.
    const global = await post('/v2/archives/rules', { transition: 'archive', system_global: true, analysis_age_days: 36500, max_images_per_account: 1000 });
    expect(global.status, global.text).toBe(200);
    const seen = await json(server.url, 'GET', '/v2/archives/rules', undefined, owner.auth);
    expect(seen.json.map((r: { rule_id: string }) => r.rule_id)).toEqual([global.json.rule_id]);
    expectForbidden(await raw(server.url, 'DELETE', `/v2/archives/rules/${global.json.rule_id}`, { auth: owner.auth }));
    expect((await raw(server.url, 'DELETE', `/v2/archives/rules/${global.json.rule_id}`)).status).toBe(200);
    const reader = await createUser(server.url, account, { roles: ['read-only'] });
    expect((await json(server.url, 'GET', '/v2/archives/images', undefined, reader.auth)).status).toBe(200);
    expectForbidden(await archive([UNKNOWN], reader.auth), 'createArchivedAnalysis');
    expectForbidden(await post('/v2/archives/rules', { transition: 'archive' }, reader.auth), 'createArchiveTransitionRule');
  });
});

describe('failures leave nothing half done', () => {
  const rowsOf = async (table: string, digest: string) => Number((await db()(table).where({ image_digest: digest }).count({ n: '*' }).first())?.n ?? 0);

  /** Makes deleting the image from the working set fail, which an archive transition does after writing the archive. */
  async function failDeletionOf(digest: string): Promise<() => Promise<void>> {
    if (databaseKind(db()) === 'sqlite') {
      await db().raw(`CREATE TRIGGER fail_image_delete BEFORE DELETE ON images WHEN OLD.image_digest = '${digest}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
      return async () => void (await db().raw('DROP TRIGGER fail_image_delete'));
    }
    await db().raw(`CREATE FUNCTION fail_image_delete() RETURNS trigger AS $$ BEGIN IF OLD.image_digest = '${digest}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN OLD; END $$ LANGUAGE plpgsql`);
    await db().raw('CREATE TRIGGER fail_image_delete BEFORE DELETE ON images FOR EACH ROW EXECUTE FUNCTION fail_image_delete()');
    return async () => {
      await db().raw('DROP TRIGGER fail_image_delete ON images');
      await db().raw('DROP FUNCTION fail_image_delete()');
    };
  }

  it('an archive transition that fails half-way keeps the image in the working set and stores no archive', async () => {
    const rule = await post('/v2/archives/rules', { transition: 'archive', analysis_age_days: 5, selector: { repository: 'other/*' } });
    expect(rule.status, rule.text).toBe(200);
    const uploads = await storedUploadCounts(server);
    const packages = await rowsOf('image_packages', other);
    const restoreDeletion = await failDeletionOf(other);
    try {
      expect((await runArchiveRules()).status).toBe('failed');
    } finally {
      await restoreDeletion();
    }
    expect((await raw(server.url, 'GET', `/v2/images/${other}`)).json.analysis_status).toBe('analyzed');
    expect(await rowsOf('image_packages', other)).toBe(packages);
    expectNotFound(await raw(server.url, 'GET', `/v2/archives/images/${other}`));
    expect(await storedUploadCounts(server)).toEqual(uploads);

    // Without the failure the next run archives it.
    expect((await runArchiveRules()).status).toBe('done');
    expect((await raw(server.url, 'GET', `/v2/images/${other}`)).status).toBe(404);
    expect((await client(server.url).GET('/archives/images')).data!.map((a) => a.imageDigest)).toEqual([other]);
    expect((await raw(server.url, 'DELETE', `/v2/archives/rules/${rule.json.rule_id}`)).status).toBe(200);
  });

  it('a restore of damaged archive content answers 409 and restores nothing', async () => {
    const record = await db()('analysis_archive').where({ image_digest: other }).first('upload_id');
    const chunk = await db()('stored_upload_chunks').where({ upload_id: record.upload_id, seq: 0 }).first('bytes');
    const damaged = Buffer.from(chunk.bytes as Uint8Array);
    damaged.fill(0, 10, 40);
    await db()('stored_upload_chunks').where({ upload_id: record.upload_id, seq: 0 }).update({ bytes: damaged });
    const res = await restore(other);
    expect(res.status, res.text).toBe(409);
    expect((await raw(server.url, 'GET', `/v2/images/${other}`)).status).toBe(404);
    for (const table of ['image_tags', 'image_packages', 'image_vulnerabilities', 'policy_evaluations']) expect(await rowsOf(table, other)).toBe(0);

    // Content gone from under its record reads as missing: a 409 too, and the service keeps running.
    await db()('stored_upload_chunks').where({ upload_id: record.upload_id }).delete();
    const missing = await restore(other);
    expect(missing.status, missing.text).toBe(409);
    expect((await raw(server.url, 'GET', `/v2/images/${other}`)).status).toBe(404);
  });
});
