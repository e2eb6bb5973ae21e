/**
 * Checks a policy document against the gate definitions before it is stored: unknown or end-of-life gates,
 * unknown triggers and parameters, missing required parameters, values their validator rejects, bad actions,
 * rule-set or allowlist ids a mapping names but the document lacks, and duplicate ids. Every problem is collected
 * with where it is, so a user fixes a document in one round.
 */
import { InvalidError } from '../errors.js';
import type { PolicyDocument } from './document.js';
import type { GateDefinition, ParamDefinition, TriggerDefinition } from './gate-types.js';
import { findGate } from './gates/index.js';

export interface PolicyProblem {
  /** Where in the document, e.g. `rule_sets[0].rules[2].params[1]`. */
  path: string;
  message: string;
  rule_id?: string;
  gate?: string;
  trigger?: string;
  param?: string;
}

const ACTIONS = new Set(['GO', 'STOP', 'WARN']);

/** A trigger's parameter by name or alias (case-insensitive). */
export function findParam(trigger: TriggerDefinition, name: string): ParamDefinition | undefined {
  const key = name.trim().toLowerCase();
  return trigger.params.find((p) => p.name === key || p.aliases?.includes(key));
}

export function findTrigger(gate: GateDefinition, name: string): TriggerDefinition | undefined {
  const key = name.trim().toLowerCase();
  return gate.triggers.find((t) => t.name === key);
}

function duplicates<T extends { id: string }>(items: readonly T[] | undefined, path: string, what: string, problems: PolicyProblem[]): void {
  const seen = new Set<string>();
  (items ?? []).forEach((item, i) => {
    if (seen.has(item.id)) problems.push({ path: `${path}[${i}].id`, message: `duplicate ${what} id '${item.id}'` });
    seen.add(item.id);
  });
}

function checkRule(rule: PolicyDocument['rule_sets'][number]['rules'][number], path: string, problems: PolicyProblem[]): void {
  const at = { rule_id: rule.id, gate: rule.gate, trigger: rule.trigger };
  if (!ACTIONS.has(rule.action.toUpperCase())) problems.push({ path: `${path}.action`, message: `action must be GO, STOP or WARN; got '${rule.action}'`, ...at });
  const gate = findGate(rule.gate);
  if (!gate) return void problems.push({ path: `${path}.gate`, message: `unknown gate '${rule.gate}'`, ...at });
  if (gate.state === 'eol')
    return void problems.push({
      path: `${path}.gate`,
      message: `gate '${gate.name}' is end-of-life${gate.supersededBy ? `; use '${gate.supersededBy}'` : ''}`,
      ...at,
    });
  const trigger = findTrigger(gate, rule.trigger);
  if (!trigger) return void problems.push({ path: `${path}.trigger`, message: `gate '${gate.name}' has no trigger '${rule.trigger}'`, ...at });
  const given = new Set<string>();
  rule.params.forEach((param, i) => {
    const def = findParam(trigger, param.name);
    const where = { path: `${path}.params[${i}]`, ...at, param: param.name };
    if (!def) return void problems.push({ ...where, message: `trigger '${gate.name}/${trigger.name}' has no parameter '${param.name}'` });
    if (given.has(def.name)) return void problems.push({ ...where, message: `parameter '${def.name}' is given twice` });
    given.add(def.name);
    const problem = def.validator.check(param.value);
    if (problem) problems.push({ ...where, message: `parameter '${def.name}' ${problem}` });
  });
  for (const def of trigger.params)
    if (def.required && !given.has(def.name)) problems.push({ path: `${path}.params`, message: `required parameter '${def.name}' is missing`, ...at, param: def.name });
}

export function policyProblems(doc: PolicyDocument): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  duplicates(doc.rule_sets, 'rule_sets', 'rule set', problems);
  duplicates(doc.allowlists, 'allowlists', 'allowlist', problems);
  duplicates(doc.mappings, 'mappings', 'mapping', problems);
  duplicates(doc.allowlisted_images, 'allowlisted_images', 'allowlisted image rule', problems);
  duplicates(doc.denylisted_images, 'denylisted_images', 'denylisted image rule', problems);
  doc.rule_sets.forEach((set, s) => {
    duplicates(set.rules, `rule_sets[${s}].rules`, 'rule', problems);
    set.rules.forEach((rule, r) => checkRule(rule, `rule_sets[${s}].rules[${r}]`, problems));
  });
  (doc.allowlists ?? []).forEach((list, l) => {
    duplicates(list.items, `allowlists[${l}].items`, 'allowlist item', problems);
    list.items.forEach((item, i) => {
      if (item.gate !== '*' && !findGate(item.gate)) problems.push({ path: `allowlists[${l}].items[${i}].gate`, message: `unknown gate '${item.gate}'`, gate: item.gate });
    });
  });
  const ruleSets = new Set(doc.rule_sets.map((r) => r.id));
  const allowlists = new Set((doc.allowlists ?? []).map((a) => a.id));
  doc.mappings.forEach((m, i) => {
    m.rule_set_ids.forEach((id, j) => {
      if (!ruleSets.has(id)) problems.push({ path: `mappings[${i}].rule_set_ids[${j}]`, message: `mapping '${m.id}' names rule set '${id}', which the policy does not have` });
    });
    (m.allowlist_ids ?? []).forEach((id, j) => {
      if (!allowlists.has(id)) problems.push({ path: `mappings[${i}].allowlist_ids[${j}]`, message: `mapping '${m.id}' names allowlist '${id}', which the policy does not have` });
    });
  });
  return problems;
}

/** Throws a 400 listing every problem when the document is not valid. */
export function assertValidPolicy(doc: PolicyDocument): void {
  const problems = policyProblems(doc);
  if (problems.length)
    throw new InvalidError(`the policy has ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${problems.slice(0, 3).map((p) => `${p.path}: ${p.message}`).join('; ')}${problems.length > 3 ? '; ...' : ''}`, {
      problems,
    });
}
