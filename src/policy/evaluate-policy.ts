/**
 * Evaluating a policy against an image (the reference algorithm): the first mapping whose registry, repository
 * and image patterns match the evaluated tag selects the rule sets and allowlists (no match: GO, unmapped); each
 * rule's trigger fires zero or more times, each firing a finding with the rule's action; allowlist items (by gate
 * and trigger id, wildcards, unexpired) turn findings to GO; the policy action is STOP > WARN > GO; a denylisted
 * image is STOP and an allowlisted one GO, the denylist winning.
 */
import type { Allowlist, ImageSelectionRule, MappingRule, PolicyDocument, PolicyRule } from './document.js';
import { type EvaluationContext, type EvaluatedTag, type TriggerParams, TriggerNotEvaluableError } from './evaluation-context.js';
import { findGate } from './gates/index.js';
import { findParam, findTrigger } from './validate-policy.js';
import { compileUserRegex } from '../util/user-regex.js';
import { appendAll } from '../util/arrays.js';

export type FinalAction = 'stop' | 'warn' | 'go';

export interface PolicyFinding {
  trigger_id: string;
  gate: string;
  trigger: string;
  message: string;
  action: FinalAction;
  policy_id: string;
  recommendation: string;
  rule_id: string;
  allowlisted: boolean;
  allowlist_match?: { id: string; name: string; matched_rule_id: string };
}

export interface EvaluationProblem {
  severity: 'error' | 'warn';
  problem_type: string;
  details: string;
}

export interface PolicyEvaluationResult {
  details?: { policy: PolicyDocument; findings: PolicyFinding[]; policy_action: FinalAction; remediations: never[] };
  comparison_image_digest: string | null;
  evaluation_time: string;
  evaluation_problems: EvaluationProblem[];
  status: 'pass' | 'fail';
  final_action: FinalAction;
  final_action_reason: 'policy_evaluation' | 'allowlisted' | 'denylisted';
  image_allowlisted: boolean;
  matched_allowlisted_images_rule: ImageSelectionRule | null;
  image_denylisted: boolean;
  matched_denylisted_images_rule: ImageSelectionRule | null;
  image_mapped_to_rule: boolean;
  matched_mapping_rule: MappingRule | null;
  number_of_findings: number;
}

const RANK: Record<FinalAction, number> = { stop: 0, warn: 1, go: 2 };

/** `*` matches anything; `regexp:` introduces a raw regular expression; everything else is literal. */
export function patternMatches(pattern: string, value: string): boolean {
  if (pattern.startsWith('regexp:')) {
    try {
      return compileUserRegex(`^(?:${pattern.slice('regexp:'.length)})`).test(value);
    } catch {
      return false;
    }
  }
  return wildcardRegex(pattern).test(value);
}

/** `*` as "anything", every other character literal, anchored at both ends. */
function wildcardRegex(pattern: string): RegExp {
  const parts = pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

function selects(rule: MappingRule | ImageSelectionRule, tag: EvaluatedTag, ctx: EvaluationContext): boolean {
  if (!patternMatches(rule.registry, tag.registry) || !patternMatches(rule.repository, tag.repo)) return false;
  const { type, value } = rule.image;
  if (type === 'tag') return patternMatches(value, tag.tag) || value === ctx.image.imageId || value === ctx.image.digest;
  if (type === 'digest') return value === ctx.image.digest;
  return value === ctx.image.imageId;
}

function paramsOf(rule: PolicyRule, trigger: NonNullable<ReturnType<typeof findTrigger>>): TriggerParams {
  const out: Record<string, string> = {};
  for (const p of rule.params) {
    const def = findParam(trigger, p.name);
    if (def) out[def.name] = p.value;
  }
  return out;
}

async function runRule(ctx: EvaluationContext, policyId: string, rule: PolicyRule, problems: EvaluationProblem[]): Promise<PolicyFinding[]> {
  const gate = findGate(rule.gate);
  const trigger = gate && findTrigger(gate, rule.trigger);
  if (!gate || !trigger) {
    problems.push({ severity: 'error', problem_type: 'UnknownTrigger', details: `rule ${rule.id}: no trigger ${rule.gate}/${rule.trigger}` });
    return [];
  }
  if (gate.state === 'eol' || trigger.state === 'eol') {
    problems.push({ severity: 'warn', problem_type: 'EndOfLifedError', details: `rule ${rule.id}: ${gate.name}/${trigger.name} is end-of-life and never fires${gate.supersededBy ? `; use ${gate.supersededBy}` : ''}` });
    return [];
  }
  if (!trigger.evaluate) {
    problems.push({ severity: 'warn', problem_type: 'TriggerNotEvaluable', details: `rule ${rule.id}: ${gate.name}/${trigger.name} needs data this analysis does not keep, so it did not fire` });
    return [];
  }
  if (trigger.state === 'deprecated')
    problems.push({ severity: 'warn', problem_type: 'DeprecationWarning', details: `rule ${rule.id}: ${gate.name}/${trigger.name} is deprecated${trigger.supersededBy ? `; use ${trigger.supersededBy}` : ''}` });
  try {
    const fired = await trigger.evaluate(ctx, paramsOf(rule, trigger));
    return fired.map((f) => ({
      trigger_id: f.triggerId,
      gate: gate.name,
      trigger: trigger.name,
      message: f.message,
      action: rule.action.toLowerCase() as FinalAction,
      policy_id: policyId,
      recommendation: rule.recommendation ?? '',
      rule_id: rule.id,
      allowlisted: false,
    }));
  } catch (err) {
    if (err instanceof TriggerNotEvaluableError) {
      problems.push({ severity: 'warn', problem_type: 'TriggerNotEvaluable', details: `rule ${rule.id}: ${gate.name}/${trigger.name} did not fire: ${err.message}` });
      return [];
    }
    problems.push({ severity: 'error', problem_type: 'TriggerEvaluationError', details: `rule ${rule.id}: ${(err as Error).message}` });
    return [];
  }
}

interface CompiledItem {
  order: number;
  list: Allowlist;
  itemId: string;
  /** Lower-case gate, or '*' for any. */
  gate: string;
  test?: (triggerId: string) => boolean;
}

/** Turns a wildcard or `regexp:` trigger id into a test, once per evaluation. */
function compiledPattern(pattern: string): (value: string) => boolean {
  if (!pattern.startsWith('regexp:') && pattern.endsWith('*') && pattern.indexOf('*') === pattern.length - 1) {
    const prefix = pattern.slice(0, -1);
    return (v) => v.startsWith(prefix);
  }
  if (pattern.startsWith('regexp:')) {
    let re: RegExp;
    try {
      re = compileUserRegex(`^(?:${pattern.slice('regexp:'.length)})`);
    } catch {
      return () => false;
    }
    return (v) => re.test(v);
  }
  const re = wildcardRegex(pattern);
  return (v) => re.test(v);
}

/**
 * Allowlist items indexed for lookup: literal trigger ids in a map, patterns compiled once; expired items left
 * out. The first matching item in list order (then item order) wins, as a scan of the lists would find it.
 */
function compileAllowlists(lists: Allowlist[], now: Date) {
  const exact = new Map<string, CompiledItem[]>();
  const patterns: CompiledItem[] = [];
  let order = 0;
  for (const list of lists)
    for (const item of list.items) {
      order++;
      if (item.expires_on && Date.parse(item.expires_on) <= now.getTime()) continue;
      const compiled: CompiledItem = { order, list, itemId: item.id, gate: item.gate === '*' ? '*' : item.gate.toLowerCase() };
      if (item.trigger_id.includes('*') || item.trigger_id.startsWith('regexp:')) patterns.push({ ...compiled, test: compiledPattern(item.trigger_id) });
      const key = item.trigger_id;
      const same = exact.get(key);
      if (same) same.push(compiled);
      else exact.set(key, [compiled]);
    }
  return { exact, patterns };
}

function applyAllowlists(findings: PolicyFinding[], allowlists: Allowlist[], now: Date): void {
  if (allowlists.length === 0) return;
  const { exact, patterns } = compileAllowlists(allowlists, now);
  const gateOk = (c: CompiledItem, f: PolicyFinding) => c.gate === '*' || c.gate === f.gate;
  for (const finding of findings) {
    let best: CompiledItem | undefined;
    for (const c of exact.get(finding.trigger_id) ?? []) if (gateOk(c, finding) && (!best || c.order < best.order)) best = c;
    for (const c of patterns) if ((!best || c.order < best.order) && gateOk(c, finding) && c.test!(finding.trigger_id)) best = c;
    if (best) {
      finding.allowlisted = true;
      finding.allowlist_match = { id: best.list.id, name: best.list.name, matched_rule_id: best.itemId };
    }
  }
}

function worst(actions: FinalAction[]): FinalAction {
  return actions.reduce<FinalAction>((a, b) => (RANK[b] < RANK[a] ? b : a), 'go');
}

/**
 * The findings of the rule sets a mapping selects, its allowlists applied. `gateApplies` leaves out rules of gates
 * that do not apply to what is evaluated (a source has no image facts), each reported as a problem.
 */
export async function evaluateRuleSets(
  doc: PolicyDocument,
  mapping: { rule_set_ids: string[]; allowlist_ids?: string[] },
  ctx: EvaluationContext,
  problems: EvaluationProblem[],
  gateApplies: (gate: string) => boolean = () => true,
): Promise<PolicyFinding[]> {
  const findings: PolicyFinding[] = [];
  for (const setId of mapping.rule_set_ids) {
    const set = doc.rule_sets.find((r) => r.id === setId);
    if (!set) continue;
    for (const rule of set.rules) {
      if (gateApplies(rule.gate)) appendAll(findings, await runRule(ctx, doc.id, rule, problems));
      else problems.push({ severity: 'warn', problem_type: 'GateNotApplicable', details: `rule ${rule.id}: gate ${rule.gate} does not apply to this artifact type, so it did not fire` });
    }
  }
  const lists = (mapping.allowlist_ids ?? []).map((id) => (doc.allowlists ?? []).find((a) => a.id === id)).filter((a): a is Allowlist => !!a);
  applyAllowlists(findings, lists, ctx.now);
  return findings;
}

/** STOP when evaluating a rule failed, else the worst action of the findings no allowlist covers. */
export function policyActionOf(findings: PolicyFinding[], problems: EvaluationProblem[]): FinalAction {
  return problems.some((p) => p.severity === 'error') ? 'stop' : worst(findings.filter((f) => !f.allowlisted).map((f) => f.action));
}

export async function evaluatePolicy(doc: PolicyDocument, ctx: EvaluationContext, options: { detail: boolean }): Promise<PolicyEvaluationResult> {
  const tag = ctx.image.tag;
  const problems: EvaluationProblem[] = [];
  const mapping = doc.mappings.find((m) => selects(m, tag, ctx)) ?? null;
  const findings = mapping ? await evaluateRuleSets(doc, mapping, ctx, problems) : [];
  const policyAction = policyActionOf(findings, problems);
  const denied = (doc.denylisted_images ?? []).find((r) => selects(r, tag, ctx)) ?? null;
  const allowed = denied ? null : ((doc.allowlisted_images ?? []).find((r) => selects(r, tag, ctx)) ?? null);
  const finalAction: FinalAction = denied ? 'stop' : allowed ? 'go' : policyAction;
  return {
    ...(options.detail ? { details: { policy: doc, findings, policy_action: policyAction, remediations: [] } } : {}),
    comparison_image_digest: null,
    evaluation_time: ctx.now.toISOString(),
    evaluation_problems: problems,
    status: finalAction === 'stop' ? 'fail' : 'pass',
    final_action: finalAction,
    final_action_reason: denied ? 'denylisted' : allowed ? 'allowlisted' : 'policy_evaluation',
    image_allowlisted: !!allowed,
    matched_allowlisted_images_rule: allowed,
    image_denylisted: !!denied,
    matched_denylisted_images_rule: denied,
    image_mapped_to_rule: !!mapping,
    matched_mapping_rule: mapping,
    number_of_findings: findings.length,
  };
}
