import { describe, expect, it } from 'vitest';
import { policyProblems } from '../../../src/policy/validate-policy.js';

describe('policyProblems on a document the schema refused', () => {
  it('checks what it can read and passes over what is malformed, without throwing', () => {
    const doc = {
      id: 'p',
      rule_sets: [
        { id: 'rs1', rules: [{ id: 'r1', gate: 'vulnerabilities', trigger: 'nosuch', action: 7, params: 'none' }, 'not a rule', { id: 5, gate: ['x'] }] },
        { id: { not: 'a string' }, rules: { not: 'a list' } },
      ],
      allowlists: 'none',
      mappings: [{ id: 'm1', rule_set_ids: ['rs1', 'gone', 3], allowlist_ids: null }, null],
    };
    expect(policyProblems(doc).map((p) => `${p.path}: ${p.message}`)).toEqual([
      "rule_sets[0].rules[0].trigger: gate 'vulnerabilities' has no trigger 'nosuch'",
      "mappings[0].rule_set_ids[1]: mapping 'm1' names rule set 'gone', which the policy does not have",
    ]);
    for (const junk of [null, undefined, 'policy', 42, [], { rule_sets: [null, 1, 'x'] }]) expect(policyProblems(junk)).toEqual([]);
  });
});
