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

/*
 * The checks read the document defensively (a list that is not an array is empty, a name that is not a string is
 * passed over): they also run on a document the spec's schema refused, so one answer lists the schema's violations
 * and these together. What the schema refuses, it reports itself.
 */
type Loose = Record<string, unknown>;

function listOf(value: unknown): Loose[] {
  return Array.isArray(value) ? value.map((item) => (item && typeof item === 'object' ? (item as Loose) : {})) : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function duplicates(items: Loose[], path: string, what: string, problems: PolicyProblem[]): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const id = text(item.id);
    if (id === undefined) return;
    if (seen.has(id)) problems.push({ path: `${path}[${i}].id`, message: `duplicate ${what} id '${id}'` });
    seen.add(id);
  });
}

function checkRule(rule: Loose, path: string, problems: PolicyProblem[]): void {
  const [id, gateName, triggerName, action] = [text(rule.id), text(rule.gate), text(rule.trigger), text(rule.action)];
  const at = { rule_id: id, gate: gateName, trigger: triggerName };
  if (action !== undefined && !ACTIONS.has(action.toUpperCase()))
    problems.push({ path: `${path}.action`, message: `action must be GO, STOP or WARN; got '${action}'`, ...at });
  if (gateName === undefined) return;
  const gate = findGate(gateName);
  if (!gate) return void problems.push({ path: `${path}.gate`, message: `unknown gate '${gateName}'`, ...at });
  if (gate.state === 'eol')
    return void problems.push({
      path: `${path}.gate`,
      message: `gate '${gate.name}' is end-of-life${gate.supersededBy ? `; use '${gate.supersededBy}'` : ''}`,
      ...at,
    });
  if (triggerName === undefined) return;
  const trigger = findTrigger(gate, triggerName);
  if (!trigger) return void problems.push({ path: `${path}.trigger`, message: `gate '${gate.name}' has no trigger '${triggerName}'`, ...at });
  const given = new Set<string>();
  listOf(rule.params).forEach((param, i) => {
    const name = text(param.name);
    if (name === undefined) return;
    const def = findParam(trigger, name);
    const where = { path: `${path}.params[${i}]`, ...at, param: name };
    if (!def) return void problems.push({ ...where, message: `trigger '${gate.name}/${trigger.name}' has no parameter '${name}'` });
    if (given.has(def.name)) return void problems.push({ ...where, message: `parameter '${def.name}' is given twice` });
    given.add(def.name);
    const value = text(param.value);
    const problem = value === undefined ? null : def.validator.check(value);
    if (problem) problems.push({ ...where, message: `parameter '${def.name}' ${problem}` });
  });
  for (const def of trigger.params)
    if (def.required && !given.has(def.name)) problems.push({ path: `${path}.params`, message: `required parameter '${def.name}' is missing`, ...at, param: def.name });
}

/** Every problem of a policy document beyond its schema; `doc` may be one the schema refused (see above). */
export function policyProblems(doc: unknown): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  if (!doc || typeof doc !== 'object') return problems;
  const policy = doc as Loose;
  const [ruleSets, allowlists, mappings] = [listOf(policy.rule_sets), listOf(policy.allowlists), listOf(policy.mappings)];
  duplicates(ruleSets, 'rule_sets', 'rule set', problems);
  duplicates(allowlists, 'allowlists', 'allowlist', problems);
  duplicates(mappings, 'mappings', 'mapping', problems);
  duplicates(listOf(policy.allowlisted_images), 'allowlisted_images', 'allowlisted image rule', problems);
  duplicates(listOf(policy.denylisted_images), 'denylisted_images', 'denylisted image rule', problems);
  ruleSets.forEach((set, s) => {
    const rules = listOf(set.rules);
    duplicates(rules, `rule_sets[${s}].rules`, 'rule', problems);
    rules.forEach((rule, r) => checkRule(rule, `rule_sets[${s}].rules[${r}]`, problems));
  });
  allowlists.forEach((list, l) => {
    const items = listOf(list.items);
    duplicates(items, `allowlists[${l}].items`, 'allowlist item', problems);
    items.forEach((item, i) => {
      const gate = text(item.gate);
      if (gate !== undefined && gate !== '*' && !findGate(gate)) problems.push({ path: `allowlists[${l}].items[${i}].gate`, message: `unknown gate '${gate}'`, gate });
    });
  });
  const ruleSetIds = new Set(ruleSets.map((r) => text(r.id)));
  const allowlistIds = new Set(allowlists.map((a) => text(a.id)));
  const sourceMappings = listOf(policy.source_mappings);
  duplicates(sourceMappings, 'source_mappings', 'source mapping', problems);
  for (const [field, list] of [['mappings', mappings], ['source_mappings', sourceMappings]] as const)
    list.forEach((m, i) => {
      const named = (value: unknown) => (Array.isArray(value) ? value : []).map((id, j) => ({ id: text(id), j })).filter((e): e is { id: string; j: number } => e.id !== undefined);
      for (const { id, j } of named(m.rule_set_ids))
        if (!ruleSetIds.has(id)) problems.push({ path: `${field}[${i}].rule_set_ids[${j}]`, message: `mapping '${text(m.id)}' names rule set '${id}', which the policy does not have` });
      for (const { id, j } of named(m.allowlist_ids))
        if (!allowlistIds.has(id)) problems.push({ path: `${field}[${i}].allowlist_ids[${j}]`, message: `mapping '${text(m.id)}' names allowlist '${id}', which the policy does not have` });
    });
  return problems;
}

/** "the policy has 2 problems: a; b", listing the first three. */
function describePolicyProblems(problems: readonly PolicyProblem[]): string {
  const listed = problems.slice(0, 3).map((p) => `${p.path}: ${p.message}`).join('; ');
  return `the policy has ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${listed}${problems.length > 3 ? '; ...' : ''}`;
}

/** Throws a 400 listing every problem when the document is not valid. */
export function assertValidPolicy(doc: PolicyDocument): void {
  const problems = policyProblems(doc);
  if (problems.length) throw new InvalidError(describePolicyProblems(problems), { problems });
}
