import { describe, expect, it } from 'vitest';
import type { PolicyDocument } from '../../../src/policy/document.js';
import type { EvaluationContext } from '../../../src/policy/evaluation-context.js';
import { evaluatePolicy, patternMatches } from '../../../src/policy/evaluate-policy.js';

const NOW = new Date('2026-11-21T00:00:00Z');

function context(tag = { registry: 'docker.io', repo: 'library/nginx', tag: '1.25', fullTag: 'docker.io/library/nginx:1.25' }): EvaluationContext {
  return {
    image: { accountName: 'a', digest: 'sha256:abc', imageId: 'sha256:cfg', arch: 'amd64', size: 1, layerCount: 1, dockerfile: { mode: null, text: null }, configExposedPorts: [], tag },
    now: NOW,
    packages: async () => [],
    files: async () => [],
    retrievedFiles: async () => undefined,
    secretSearch: async () => undefined,
    contentSearch: async () => undefined,
    ancestors: async () => [],
    vulnerabilities: async () => [],
    feedGroups: async () => [],
    distroNamespace: () => undefined,
    previousImagePackages: async () => undefined,
  };
}

function doc(extra: Partial<PolicyDocument> = {}): PolicyDocument {
  return {
    id: 'p',
    name: 'p',
    version: '2',
    rule_sets: [
      { id: 'rs1', name: 'one', version: '2', rules: [{ id: 'r1', gate: 'always', trigger: 'always', action: 'WARN', params: [] }] },
      { id: 'rs2', name: 'two', version: '2', rules: [{ id: 'r2', gate: 'always', trigger: 'always', action: 'STOP', params: [] }] },
      { id: 'eol', name: 'old', version: '2', rules: [{ id: 'r3', gate: 'anchoresec', trigger: 'vulnhigh', action: 'STOP', params: [] }] },
    ],
    allowlists: [
      { id: 'expired', name: 'expired', version: '2', items: [{ id: 'x', gate: 'always', trigger_id: 'always', expires_on: '2026-01-01T00:00:00Z' }] },
      { id: 'live', name: 'live', version: '2', items: [{ id: 'y', gate: 'ALWAYS', trigger_id: 'alw*' }] },
    ],
    mappings: [
      { id: 'm-other', name: 'other', registry: 'quay.io', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs2'], allowlist_ids: [] },
      { id: 'm-nginx', name: 'nginx', registry: 'docker.io', repository: 'regexp:library/ngin.', image: { type: 'tag', value: '1.*' }, rule_set_ids: ['rs1'], allowlist_ids: [] },
      { id: 'm-all', name: 'all', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs2'], allowlist_ids: [] },
    ],
    ...extra,
  };
}

describe('patternMatches', () => {
  it('treats * as a wildcard, everything else literally, and regexp: as a regular expression', () => {
    expect(patternMatches('*', 'anything')).toBe(true);
    expect(patternMatches('team/*', 'team/app')).toBe(true);
    expect(patternMatches('team/*', 'other/app')).toBe(false);
    expect(patternMatches('1.2', '1x2')).toBe(false);
    expect(patternMatches('regexp:v[0-9]+', 'v12')).toBe(true);
    expect(patternMatches('regexp:([', 'x')).toBe(false);
  });
});

describe('evaluatePolicy', () => {
  it('uses the first matching mapping only', async () => {
    const r = await evaluatePolicy(doc(), context(), { detail: true });
    expect(r.matched_mapping_rule?.id).toBe('m-nginx');
    expect(r.details?.findings.map((f) => `${f.rule_id}:${f.action}`)).toEqual(['r1:warn']);
    expect(r).toMatchObject({ final_action: 'warn', status: 'pass', image_mapped_to_rule: true });
  });

  it('answers GO when no mapping matches', async () => {
    const r = await evaluatePolicy(doc({ mappings: [doc().mappings[0]!] }), context(), { detail: false });
    expect(r).toMatchObject({ final_action: 'go', image_mapped_to_rule: false, number_of_findings: 0 });
    expect(r.details).toBeUndefined();
  });

  it('skips expired allowlist items and matches gate case-insensitively with wildcard trigger ids', async () => {
    const mapping = { ...doc().mappings[2]!, rule_set_ids: ['rs2'], allowlist_ids: ['expired'] };
    const stillStops = await evaluatePolicy(doc({ mappings: [mapping] }), context(), { detail: true });
    expect(stillStops.final_action).toBe('stop');
    const allowed = await evaluatePolicy(doc({ mappings: [{ ...mapping, allowlist_ids: ['expired', 'live'] }] }), context(), { detail: true });
    expect(allowed.final_action).toBe('go');
    expect(allowed.details?.findings[0]).toMatchObject({ allowlisted: true, allowlist_match: { id: 'live', matched_rule_id: 'y' } });
  });

  it('reports end-of-life rules as problems that never fire', async () => {
    const mapping = { ...doc().mappings[2]!, rule_set_ids: ['eol'] };
    const r = await evaluatePolicy(doc({ mappings: [mapping] }), context(), { detail: true });
    expect(r.final_action).toBe('go');
    expect(r.evaluation_problems).toEqual([expect.objectContaining({ severity: 'warn', problem_type: 'EndOfLifedError' })]);
  });

  it('lets a denylisted image stop even when it is also allowlisted', async () => {
    const rule = { id: 'img', name: 'img', registry: '*', repository: '*', image: { type: 'digest' as const, value: 'sha256:abc' } };
    const both = await evaluatePolicy(doc({ allowlisted_images: [rule], denylisted_images: [{ ...rule, image: { type: 'id', value: 'sha256:cfg' } }] }), context(), { detail: false });
    expect(both).toMatchObject({ final_action: 'stop', final_action_reason: 'denylisted', image_allowlisted: false });
    const allowed = await evaluatePolicy(doc({ allowlisted_images: [rule] }), context(), { detail: false });
    expect(allowed).toMatchObject({ final_action: 'go', final_action_reason: 'allowlisted' });
  });
});
