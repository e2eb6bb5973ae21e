/** Policies: the default policy, the policy spec, validation of uploads, activation and deletion rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithUser, expectError, expectValidationError } from '../support/fixtures.js';
import { json, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

function policy(id: string, rules: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id,
    name: `Policy ${id}`,
    version: '2',
    rule_sets: [{ id: 'rs1', name: 'Rules', version: '2', rules }],
    allowlists: [{ id: 'al1', name: 'Allowed', version: '2', items: [{ id: 'i1', gate: 'vulnerabilities', trigger_id: 'CVE-2099-1+openssl' }] }],
    mappings: [{ id: 'm1', name: 'All', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs1'], allowlist_ids: ['al1'] }],
    ...extra,
  };
}

const critical = { id: 'r1', gate: 'vulnerabilities', trigger: 'package', action: 'STOP', params: [{ name: 'package_type', value: 'all' }, { name: 'severity_comparison', value: '>=' }, { name: 'severity', value: 'critical' }] };

describe('policies', () => {
  it('gives every account an active default policy', async () => {
    const list = await raw(server.url, 'GET', '/v2/policies');
    expect(list.status).toBe(200);
    expect(list.json).toEqual([expect.objectContaining({ policy_id: 'vigil-default', active: true, account_name: 'admin', policy_source: 'local' })]);
    expect(list.json[0].policy).toBeUndefined();
    const detailed = await raw(server.url, 'GET', '/v2/policies?detail=true');
    const rules = detailed.json[0].policy.rule_sets[0].rules.map((r: { gate: string; trigger: string; action: string }) => `${r.gate}/${r.trigger} ${r.action}`);
    // Low-confidence findings only warn: above medium (second rule) or known-exploited (fourth).
    expect(rules).toEqual(['vulnerabilities/package STOP', 'vulnerabilities/package WARN', 'vulnerabilities/package STOP', 'vulnerabilities/package WARN', 'vulnerabilities/package WARN', 'vulnerabilities/stale_feed_data WARN', 'dockerfile/exposed_ports STOP', 'dockerfile/instruction WARN']);
  });

  it('describes every gate, trigger and parameter, end-of-life gates included', async () => {
    const res = await raw(server.url, 'GET', '/v2/system/policy-spec');
    expect(res.status).toBe(200);
    const gates = Object.fromEntries(res.json.map((g: { name: string }) => [g.name, g]));
    for (const name of ['always', 'dockerfile', 'files', 'licenses', 'metadata', 'packages', 'passwd_file', 'retrieved_files', 'secret_scans', 'vulnerabilities', 'tag_drift', 'distro', 'ancestry'])
      expect(gates[name], name).toMatchObject({ state: 'active', supported_artifact_type: 'image' });
    const pkg = gates.vulnerabilities.triggers.find((t: { name: string }) => t.name === 'package');
    const params = Object.fromEntries(pkg.parameters.map((p: { name: string }) => [p.name, p]));
    expect(params.package_type).toMatchObject({ required: true, validator: { type: 'EnumString', criteria: { enum: ['all', 'os', 'non-os'] } } });
    expect(params.max_days_since_fix).toMatchObject({ required: false, validator: { type: 'IntegerString' } });
    expect(params.known_exploited_vulnerability.validator.type).toBe('BooleanString');
    expect(gates.anchoresec).toMatchObject({ state: 'eol', superseded_by: 'vulnerabilities' });
  });

  it('rejects an invalid document with every problem and its location, storing nothing', async () => {
    const bad = policy('broken', [
      { id: 'a', gate: 'nosuchgate', trigger: 'x', action: 'STOP', params: [] },
      { id: 'b', gate: 'vulnerabilities', trigger: 'nosuchtrigger', action: 'STOP', params: [] },
      { id: 'c', gate: 'vulnerabilities', trigger: 'package', action: 'WARN', params: [{ name: 'severity', value: 'apocalyptic' }, { name: 'colour', value: 'red' }] },
      { id: 'c', gate: 'dockerfile', trigger: 'exposed_ports', action: 'GO', params: [{ name: 'ports', value: '22,abc' }, { name: 'type', value: 'blacklist' }] },
      { id: 'e', gate: 'anchoresec', trigger: 'vulnhigh', action: 'STOP', params: [] },
      { id: 'f', gate: 'files', trigger: 'name_match', action: 'STOP', params: [{ name: 'regex', value: '([unclosed' }] },
    ], { mappings: [{ id: 'm1', name: 'All', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs1', 'nope'], allowlist_ids: ['missing'] }] });
    const res = await json(server.url, 'POST', '/v2/policies', bad);
    expectError(res, 400, 'validation_error');
    const problems = res.json.detail.problems.map((p: { path: string; message: string }) => `${p.path}: ${p.message}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^rule_sets\[0\]\.rules\[3\]\.id: duplicate rule id 'c'/),
        expect.stringMatching(/^rule_sets\[0\]\.rules\[0\]\.gate: unknown gate 'nosuchgate'/),
        expect.stringMatching(/^rule_sets\[0\]\.rules\[1\]\.trigger: gate 'vulnerabilities' has no trigger 'nosuchtrigger'/),
        expect.stringMatching(/^rule_sets\[0\]\.rules\[2\]\.params\[0\]: parameter 'severity' must be one of/),
        expect.stringMatching(/^rule_sets\[0\]\.rules\[2\]\.params\[1\]: trigger 'vulnerabilities\/package' has no parameter 'colour'/),
        expect.stringMatching(/^rule_sets\[0\]\.rules\[2\]\.params: required parameter 'package_type' is missing/),
        expect.stringMatching(/^rule_sets\[0\]\.rules\[3\]\.params\[0\]: parameter 'ports' must be a comma-separated list of whole numbers/),
        expect.stringMatching(/^rule_sets\[0\]\.rules\[4\]\.gate: gate 'anchoresec' is end-of-life; use 'vulnerabilities'/),
        expect.stringMatching(/^rule_sets\[0\]\.rules\[5\]\.params\[0\]: parameter 'regex' is not a valid regular expression/),
        expect.stringMatching(/^mappings\[0\]\.rule_set_ids\[1\]: mapping 'm1' names rule set 'nope'/),
        expect.stringMatching(/^mappings\[0\]\.allowlist_ids\[0\]: mapping 'm1' names allowlist 'missing'/),
      ]),
    );
    expect(res.json.detail.problems.find((p: { rule_id?: string; param?: string }) => p.param === 'colour')).toMatchObject({ rule_id: 'c', gate: 'vulnerabilities', trigger: 'package' });
    expectError(await raw(server.url, 'GET', '/v2/policies/broken'), 404, 'not_found');
  });

  it('lists a bad action, a bad trigger and a bad rule set id in one answer, on upload, update and dry run', async () => {
    const bad = policy('three', [
      { ...critical, id: 'r1', action: 'BLOCK' },
      { ...critical, id: 'r2', trigger: 'nosuchtrigger' },
    ], { mappings: [{ id: 'm1', name: 'All', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs1', 'nope'] }] });
    const expectThree = (res: Awaited<ReturnType<typeof json>>, within: string) => {
      expectValidationError(res, [`${within}.rule_sets.0.rules.0.action`]);
      expect(res.json.detail.problems.map((p: { path: string }) => p.path)).toEqual(['rule_sets[0].rules[1].trigger', 'mappings[0].rule_set_ids[1]']);
      expect(res.json.detail.problems[0]).toMatchObject({ rule_id: 'r2', gate: 'vulnerabilities', message: "gate 'vulnerabilities' has no trigger 'nosuchtrigger'" });
      expect(res.json.message).toMatch(new RegExp(`^request validation failed: ${within}\\.rule_sets\\.0\\.rules\\.0\\.action must be one of .*; and 2 more problems: ${within}\\.rule_sets\\.0\\.rules\\.1\\.trigger `));
    };
    expectThree(await json(server.url, 'POST', '/v2/policies', bad), 'body');
    expectThree(await json(server.url, 'POST', '/v2/policy-dry-run', bad), 'body');
    expect((await json(server.url, 'POST', '/v2/policies', policy('three', [critical]))).status).toBe(200);
    expectThree(await json(server.url, 'PUT', '/v2/policies/three', { policy: bad }), 'body.policy');
    expect((await raw(server.url, 'GET', '/v2/policies/three')).json.policy.rule_sets[0].rules).toEqual([critical]);
    expect((await raw(server.url, 'DELETE', '/v2/policies/three')).status).toBe(204);
  });

  it('rejects structurally bad documents and ids, reporting each violation once', async () => {
    expectValidationError(await json(server.url, 'POST', '/v2/policies', { ...policy('p', [critical]), rule_sets: undefined }), ['body.rule_sets']);
    expectValidationError(await json(server.url, 'POST', '/v2/policies', policy('p', [{ ...critical, action: 'MAYBE' }])), ['body.rule_sets.0.rules.0.action']);
    expectValidationError(await json(server.url, 'POST', '/v2/policies', policy('p', [{ ...critical, params: [{ name: 'severity', value: 7 }] }])), ['body.rule_sets.0.rules.0.params.0.value']);
    expectValidationError(await raw(server.url, 'GET', '/v2/policies/bad%20id'), ['path.policy_id']);
  });

  it('adds, reads, activates and deletes policies, keeping exactly one active', async () => {
    const added = await json(server.url, 'POST', '/v2/policies', policy('strict', [critical]));
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ policy_id: 'strict', active: false, name: 'Policy strict' });
    expectError(await json(server.url, 'POST', '/v2/policies', policy('strict', [critical])), 409, 'conflict');
    expect((await raw(server.url, 'GET', '/v2/policies/strict')).json.policy.rule_sets[0].rules[0].id).toBe('r1');

    const doc = policy('strict', [critical, { id: 'r2', gate: 'always', trigger: 'always', action: 'WARN', params: [] }]);
    expectError(await json(server.url, 'PUT', '/v2/policies/strict', { policy: { ...doc, id: 'other' } }), 400, 'validation_error');
    const activated = await json(server.url, 'PUT', '/v2/policies/strict?active=true', { policy: doc });
    expect(activated.status).toBe(200);
    expect(activated.json).toMatchObject({ policy_id: 'strict', active: true });
    expect(activated.json.policy.rule_sets[0].rules).toHaveLength(2);
    const list = (await raw(server.url, 'GET', '/v2/policies')).json.map((p: { policy_id: string; active: boolean }) => `${p.policy_id}:${p.active}`);
    expect(list.sort()).toEqual(['strict:true', 'vigil-default:false']);

    expectError(await json(server.url, 'PUT', '/v2/policies/strict?active=false', { policy: doc }), 409, 'conflict');
    expectError(await raw(server.url, 'DELETE', '/v2/policies/strict'), 409, 'conflict');
    expect((await raw(server.url, 'DELETE', '/v2/policies/vigil-default')).status).toBe(204);
    expectError(await raw(server.url, 'DELETE', '/v2/policies/vigil-default'), 404, 'not_found');
    expectError(await json(server.url, 'PUT', '/v2/policies/nope', { policy: policy('nope', [critical]) }), 404, 'not_found');
  });

  it('activates as upstream clients do: no body, a record without `policy`, or the record from GET with active true', async () => {
    const a = policy('act-a', [critical]);
    const b = policy('act-b', [critical]);
    const c = policy('act-c', [critical]);
    for (const doc of [a, b, c]) expect((await json(server.url, 'POST', '/v2/policies', doc)).status).toBe(200);
    const active = async () => (await raw(server.url, 'GET', '/v2/policies')).json.filter((p: { active: boolean }) => p.active).map((p: { policy_id: string }) => p.policy_id);

    // The README's command as written: no body at all.
    const bare = await raw(server.url, 'PUT', '/v2/policies/act-a?active=true');
    expect(bare.status).toBe(200);
    expect(bare.json).toMatchObject({ policy_id: 'act-a', active: true, policy: { id: 'act-a' } });
    expect(bare.json.policy.rule_sets).toEqual(a.rule_sets);
    expect(await active()).toEqual(['act-a']);

    // A record without `policy` keeps the stored document.
    const recordOnly = await json(server.url, 'PUT', '/v2/policies/act-b?active=true', { policy_id: 'act-b', name: 'ignored' });
    expect(recordOnly.status).toBe(200);
    expect(recordOnly.json).toMatchObject({ policy_id: 'act-b', active: true, name: 'Policy act-b' });
    expect(await active()).toEqual(['act-b']);

    // The record GET answers, sent back with active true and no query parameter (what anchorectl does).
    const record = (await raw(server.url, 'GET', '/v2/policies/act-c')).json;
    const viaRecord = await json(server.url, 'PUT', '/v2/policies/act-c', { ...record, active: true });
    expect(viaRecord.status).toBe(200);
    expect(viaRecord.json).toMatchObject({ policy_id: 'act-c', active: true });
    expect(await active()).toEqual(['act-c']);

    // Neither the query nor the record asks for activation: nothing changes but the document.
    expect((await json(server.url, 'PUT', '/v2/policies/act-a', { ...record, policy: a, active: false })).json).toMatchObject({ active: false });
    expect(await active()).toEqual(['act-c']);
    expectError(await raw(server.url, 'PUT', '/v2/policies/act-c?active=false'), 409, 'conflict');
    expectError(await raw(server.url, 'PUT', '/v2/policies/act-missing?active=true'), 404, 'not_found');
  });

  it('keeps accounts apart and follows RBAC', async () => {
    const reader = await accountWithUser(server.url, ['read-only']);
    const theirs = await raw(server.url, 'GET', '/v2/policies', { auth: reader.auth });
    expect(theirs.json.map((p: { policy_id: string; account_name: string }) => `${p.account_name}/${p.policy_id}`)).toEqual([`${reader.account}/vigil-default`]);
    expectError(await json(server.url, 'POST', '/v2/policies', policy('mine', [critical]), reader.auth), 403, 'forbidden');
    expect((await raw(server.url, 'GET', '/v2/system/policy-spec', { auth: reader.auth })).status).toBe(200);
  });
});
