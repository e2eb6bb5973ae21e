/**
 * Policy checks end to end: an analyzed image with findings from a fixture feed, evaluated with the default
 * policy and with custom ones (mappings, allowlists, allowlisted and denylisted images), stored with history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE, DPKG_STATUS, STATUS_D_LIBSSL3 } from '../support/ecosystem-fixtures.js';
import { expectError, expectValidationError } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar } from '../support/image-builder.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { initialRecords, writeRecords } from '../vulns/fixture-feed.js';

const TAG = 'registry.example.com/team/checked:1.0';
let server: TestServer;
let work: string;
let digest: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-check-'));
  writeRecords(join(work, 'osv'), initialRecords());
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  const image = await buildImage({
    layers: [[
      { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
      { path: 'var/lib/dpkg/status', content: DPKG_STATUS },
      { path: 'var/lib/dpkg/status.d/libssl3', content: STATUS_D_LIBSSL3 },
    ]],
  });
  const res = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [TAG] }) });
  digest = res.json.image_digest;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const check = (query: string) => raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(TAG)}${query}`);

function policy(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    version: '2',
    rule_sets: [
      {
        id: 'rs',
        name: 'rs',
        version: '2',
        rules: [
          { id: 'crit', gate: 'vulnerabilities', trigger: 'package', action: 'STOP', params: [{ name: 'package_type', value: 'all' }, { name: 'severity_comparison', value: '>=' }, { name: 'severity', value: 'high' }] },
          { id: 'always-warn', gate: 'always', trigger: 'always', action: 'WARN', params: [] },
        ],
      },
    ],
    allowlists: [{ id: 'al', name: 'Accepted risks', version: '2', items: [{ id: 'accept-openssl', gate: 'vulnerabilities', trigger_id: 'DSA-9001-1+*' }] }],
    mappings: [{ id: 'team', name: 'Team images', registry: 'registry.example.com', repository: 'team/*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs'], allowlist_ids: [] }],
    ...extra,
  };
}

describe('policy check', () => {
  it('evaluated the image automatically when its analysis completed', async () => {
    const stored = await server.running.services.db('policy_evaluations').where({ image_digest: digest, tag: TAG }).select('policy_id', 'status', 'latest');
    expect(stored).toEqual([expect.objectContaining({ policy_id: 'vigil-default', status: 'fail' })]);
  });

  it('evaluates the active default policy: a critical vulnerability stops the image', async () => {
    const res = await check('');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ policy_id: 'vigil-default', image_digest: digest, evaluated_tag: TAG });
    const [evaluation] = res.json.evaluations;
    expect(evaluation).toMatchObject({ status: 'fail', final_action: 'stop', final_action_reason: 'policy_evaluation', image_mapped_to_rule: true, latest: true });
    const finding = evaluation.details.findings.find((f: { trigger_id: string }) => f.trigger_id === 'DSA-9001-1+libssl3');
    expect(finding).toMatchObject({ gate: 'vulnerabilities', trigger: 'package', action: 'stop', rule_id: 'vulns-above-medium', allowlisted: false });
    expect(finding.message).toMatch(/^CRITICAL Vulnerability found in os package type \(dpkg\) - libssl3/);
  });

  it("stops an image whose config exposes port 22 though no Dockerfile is known (the default policy's ssh rule)", async () => {
    const tag = 'registry.example.com/team/sshd:1';
    const image = await buildImage({ layers: [[{ path: 'etc/os-release', content: DEBIAN_OS_RELEASE }]], runtime: { ExposedPorts: { '22/tcp': {} } } });
    const added = await raw(server.url, 'POST', '/v2/images/archives', { headers: { 'content-type': 'application/x-tar' }, body: await dockerArchiveTar(image, { repoTags: [tag] }) });
    expect(added.status).toBe(200);
    const sshd = added.json.image_digest;
    expect(await waitForAnalysis(server, 'admin', sshd)).toBe('analyzed');
    const res = await raw(server.url, 'GET', `/v2/images/${sshd}/check?tag=${encodeURIComponent(tag)}`);
    expect(res.status).toBe(200);
    const [evaluation] = res.json.evaluations;
    expect(evaluation).toMatchObject({ status: 'fail', final_action: 'stop' });
    const finding = evaluation.details.findings.find((f: { trigger: string }) => f.trigger === 'exposed_ports');
    expect(finding).toMatchObject({ gate: 'dockerfile', action: 'stop', rule_id: 'ssh-exposed', message: 'Image config exposes port 22/tcp, which is in the denied list' });
    // The other tests count the account's tags.
    expect((await raw(server.url, 'DELETE', `/v2/images/${sshd}?force=true`)).status).toBe(200);
  });

  it('applies mappings, allowlists with wildcards, and allowlisted and denylisted images', async () => {
    expect((await json(server.url, 'POST', '/v2/policies', policy('team'))).status).toBe(200);
    const plain = (await check('&policy_id=team')).json.evaluations[0];
    expect(plain).toMatchObject({ final_action: 'stop', status: 'fail' });
    expect(plain.details.findings.find((f: { trigger_id: string }) => f.trigger_id === 'always')).toMatchObject({ action: 'warn', rule_id: 'always-warn' });

    const allowing = policy('team-allow', { mappings: [{ ...policy('x').mappings[0], allowlist_ids: ['al'] }] });
    expect((await json(server.url, 'POST', '/v2/policies', allowing)).status).toBe(200);
    const allowed = (await check('&policy_id=team-allow')).json.evaluations[0];
    expect(allowed).toMatchObject({ final_action: 'warn', status: 'pass' });
    const ssl = allowed.details.findings.find((f: { trigger_id: string }) => f.trigger_id === 'DSA-9001-1+libssl3');
    expect(ssl).toMatchObject({ allowlisted: true, allowlist_match: { id: 'al', name: 'Accepted risks', matched_rule_id: 'accept-openssl' } });

    const elsewhere = policy('other-registry', { mappings: [{ ...policy('x').mappings[0], registry: 'other.example' }] });
    expect((await json(server.url, 'POST', '/v2/policies', elsewhere)).status).toBe(200);
    expect((await check('&policy_id=other-registry')).json.evaluations[0]).toMatchObject({ final_action: 'go', image_mapped_to_rule: false, number_of_findings: 0 });

    const rule = { id: 'this-one', name: 'this image', registry: '*', repository: 'team/checked', image: { type: 'digest', value: digest } };
    expect((await json(server.url, 'POST', '/v2/policies', policy('allow-image', { allowlisted_images: [rule] }))).status).toBe(200);
    expect((await check('&policy_id=allow-image')).json.evaluations[0]).toMatchObject({ final_action: 'go', final_action_reason: 'allowlisted', image_allowlisted: true });
    expect((await json(server.url, 'POST', '/v2/policies', policy('deny-image', { allowlisted_images: [rule], denylisted_images: [{ ...rule, image: { type: 'tag', value: '1.*' } }] }))).status).toBe(200);
    expect((await check('&policy_id=deny-image')).json.evaluations[0]).toMatchObject({ final_action: 'stop', final_action_reason: 'denylisted', image_denylisted: true, image_allowlisted: false });
  });

  it('ignores expired allowlist items, and selects mappings by regexp: patterns, first match winning', async () => {
    const withItem = (id: string, expiresOn: string) =>
      policy(id, {
        allowlists: [{ id: 'al', name: 'Accepted risks', version: '2', items: [{ id: 'accept-openssl', gate: 'vulnerabilities', trigger_id: 'DSA-9001-1+libssl3', expires_on: expiresOn }] }],
        mappings: [{ ...policy('x').mappings[0], allowlist_ids: ['al'] }],
      });
    const ssl = (evaluation: { details: { findings: { trigger_id: string; allowlisted: boolean }[] } }) =>
      evaluation.details.findings.find((f) => f.trigger_id === 'DSA-9001-1+libssl3');
    expect((await json(server.url, 'POST', '/v2/policies', withItem('expired-item', '2020-01-01T00:00:00Z'))).status).toBe(200);
    const expired = (await check('&policy_id=expired-item')).json.evaluations[0];
    expect(ssl(expired)).toMatchObject({ allowlisted: false });
    expect(expired).toMatchObject({ status: 'fail', final_action: 'stop' });
    expect((await json(server.url, 'POST', '/v2/policies', withItem('current-item', '2999-01-01T00:00:00Z'))).status).toBe(200);
    expect(ssl((await check('&policy_id=current-item')).json.evaluations[0])).toMatchObject({ allowlisted: true });

    // Two mappings match; the first one (by regexp:) wins, so the image gets only its rule set (always WARN).
    const warnOnly = { id: 'warn-only', name: 'warn only', version: '2', rules: [{ id: 'w', gate: 'always', trigger: 'always', action: 'WARN', params: [] }] };
    const mapped = policy('regexp-mapping', {
      rule_sets: [...policy('x').rule_sets, warnOnly],
      mappings: [
        { id: 'by-regexp', name: 'by regexp', registry: 'regexp:registry\\.example\\.(com|org)', repository: 'regexp:team/che.+', image: { type: 'tag', value: 'regexp:[0-9]+\\.[0-9]+' }, rule_set_ids: ['warn-only'], allowlist_ids: [] },
        policy('x').mappings[0],
      ],
    });
    expect((await json(server.url, 'POST', '/v2/policies', mapped)).status).toBe(200);
    const evaluation = (await check('&policy_id=regexp-mapping')).json.evaluations[0];
    expect(evaluation).toMatchObject({ final_action: 'warn', status: 'pass', image_mapped_to_rule: true });
    expect(evaluation.details.findings.map((f: { rule_id: string }) => f.rule_id)).toEqual(['w']);
  });

  it('stores evaluations with history; interactive ones are not stored; detail=false leaves out the findings', async () => {
    await check('&policy_id=team');
    const withHistory = (await check('&policy_id=team&history=true')).json.evaluations;
    expect(withHistory.length).toBeGreaterThanOrEqual(3);
    expect(withHistory.map((e: { latest: boolean }) => e.latest)).toEqual([true, ...withHistory.slice(1).map(() => false)]);
    const before = withHistory.length;
    await check('&policy_id=team&interactive=true');
    expect((await check('&policy_id=team&history=true&detail=false')).json.evaluations).toHaveLength(before + 1);
    const brief = (await check('&policy_id=team&detail=false')).json.evaluations[0];
    expect(brief.details).toBeUndefined();
    expect(brief.number_of_findings).toBeGreaterThan(0);
  });

  it('answers 400 without a tag, 404 for a tag the image never had, an unknown policy or image', async () => {
    expectValidationError(await raw(server.url, 'GET', `/v2/images/${digest}/check`), ['query.tag']);
    expectError(await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=registry.example.com/other:1`), 404, 'not_found');
    expectError(await check('&policy_id=nope'), 404, 'not_found');
    expectError(await raw(server.url, 'GET', `/v2/images/sha256:${'3'.repeat(64)}/check?tag=${TAG}`), 404, 'not_found');
    expectValidationError(await check('&history=often'), ['query.history']);
  });

  it('re-evaluates when the active policy changes and records the flip for a policy_eval subscription', async () => {
    const sub = await json(server.url, 'POST', '/v2/subscriptions', { subscription_type: 'policy_eval', subscription_key: TAG });
    expect(sub.status).toBe(200);
    expect((await check('')).json.evaluations[0].status).toBe('fail');
    const { worker } = server.running.services;
    const reevaluated = new Promise<void>((resolve) => {
      const onFinished = (f: { kind: string; status: string }) => {
        if (f.kind === 'policy_reevaluate' && f.status === 'done') {
          worker.off('finished', onFinished);
          resolve();
        }
      };
      worker.on('finished', onFinished);
    });
    const allow = (await raw(server.url, 'GET', '/v2/policies/allow-image')).json.policy;
    expect((await json(server.url, 'PUT', '/v2/policies/allow-image?active=true', { policy: allow })).status).toBe(200);
    await reevaluated;
    const events = await raw(server.url, 'GET', '/v2/events?event_type=user.checks.tag.policy_evaluation.update');
    const [event] = events.json.results;
    expect(event.event).toMatchObject({ resource: { type: 'image_tag', id: TAG } });
    expect(event.event.details).toMatchObject({
      subscription_type: 'policy_eval',
      policy_id: 'allow-image',
      image_digest: digest,
      last_eval: { status: 'fail', final_action: 'stop' },
      curr_eval: { status: 'pass', final_action: 'go', final_action_reason: 'allowlisted' },
    });
  });

  it('dry-runs a draft policy against current tags without activating or storing it', async () => {
    const db = server.running.services.db;
    const storedBefore = Number((await db('policy_evaluations').count({ n: '*' }).first())?.n);
    const active = (await raw(server.url, 'GET', '/v2/policies?detail=false')).json.find((p: { active: boolean }) => p.active).policy_id;
    const res = await json(server.url, 'POST', '/v2/policy-dry-run', policy('draft-strict'));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ active_policy_id: active, draft_policy_id: 'draft-strict', summary: { tags: 1, pass_to_fail: 1, fail_to_pass: 0, unchanged: 0 } });
    const [tag] = res.json.tags;
    expect(tag).toMatchObject({ tag: TAG, image_digest: digest, current: { status: 'pass' }, draft: { status: 'fail', final_action: 'stop' }, change: 'pass_to_fail' });
    expect(tag.reasons.map((r: { trigger_id: string }) => r.trigger_id)).toContain('DSA-9001-1+libssl3');
    expect(Number((await db('policy_evaluations').count({ n: '*' }).first())?.n)).toBe(storedBefore);
    expectError(await raw(server.url, 'GET', '/v2/policies/draft-strict'), 404, 'not_found');
    const invalid = await json(server.url, 'POST', '/v2/policy-dry-run', policy('bad', { rule_sets: [{ id: 'rs', name: 'rs', version: '2', rules: [{ id: 'x', gate: 'nope', trigger: 'x', action: 'STOP', params: [] }] }] }));
    expectError(invalid, 400, 'validation_error');
    expect(invalid.json.detail.problems).toHaveLength(1);
  });
});
