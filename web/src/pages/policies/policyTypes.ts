/** The policy shapes the pages use (from the generated types) and the server's validation problems by location. */
import type { components } from '../../../../generated/openapi-types';
import { ApiError } from '../../api/errors';

export type Policy = components['schemas']['Policy'];
export type PolicyRecord = components['schemas']['PolicyRecord'];
export type RuleSet = components['schemas']['RuleSet'];
export type PolicyRule = components['schemas']['PolicyRule'];
export type GateSpec = components['schemas']['GateSpec'];
export type PolicyDryRun = components['schemas']['PolicyDryRun'];

/** One problem of a refused policy (validate-policy.ts): its path in the document and what it names there. */
export interface PolicyProblem {
  path: string;
  message: string;
  rule_id?: string;
  param?: string;
}

/**
 * A request-schema violation's location (`body.policy.rule_sets.0.rules.1.action`; PUT wraps the document in a
 * record's `policy`) as a document path like the policy checks give (`rule_sets[0].rules[1].action`).
 */
function documentPath(location: string): string {
  return location
    .replace(/^body\.(policy\.)?/, '')
    .replace(/^body$/, '')
    .replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/**
 * The problems of a refused add/update/dry-run: the policy checks' `detail.problems`, or the request schema's
 * `detail.errors` (what the schema refuses never reaches the checks). Empty when the failure is another kind.
 */
export function policyProblems(error: unknown): PolicyProblem[] {
  if (!(error instanceof ApiError)) return [];
  if (Array.isArray(error.detail.errors) && !Array.isArray(error.detail.problems)) {
    return (error.detail.errors as { location?: unknown; message?: unknown }[])
      .filter((e) => typeof e.location === 'string' && e.location.startsWith('body') && typeof e.message === 'string')
      .map((e) => ({ path: documentPath(e.location as string), message: `${e.message as string}` }));
  }
  if (!Array.isArray(error.detail.problems)) return [];
  return (error.detail.problems as unknown[]).flatMap((p) => {
    if (!p || typeof p !== 'object') return [];
    const problem = p as Record<string, unknown>;
    if (typeof problem.message !== 'string') return [];
    return [
      {
        path: typeof problem.path === 'string' ? problem.path : '',
        message: problem.message,
        rule_id: typeof problem.rule_id === 'string' ? problem.rule_id : undefined,
        param: typeof problem.param === 'string' ? problem.param : undefined,
      },
    ];
  });
}

/** The problems of one rule (by its path `rule_sets[s].rules[r]`), sorted by the field they belong to. */
export interface RuleProblems {
  id?: string;
  gate?: string;
  trigger?: string;
  action?: string;
  /** By parameter name (lower case). */
  params: Record<string, string>;
  /** Problems of the rule not tied to one field. */
  other: string[];
}

export function ruleProblems(problems: PolicyProblem[], rulePath: string, rule: PolicyRule): RuleProblems {
  const found: RuleProblems = { params: {}, other: [] };
  const add = (current: string | undefined, message: string) => (current ? `${current}; ${message}` : message);
  for (const problem of problems) {
    if (problem.path !== rulePath && !problem.path.startsWith(`${rulePath}.`)) continue;
    const rest = problem.path.slice(rulePath.length + 1);
    const param = /^params\[(\d+)\]/.exec(rest);
    const paramName = problem.param ?? (param ? rule.params[Number(param[1])]?.name : undefined);
    if ((param || rest === 'params') && paramName) found.params[paramName.toLowerCase()] = add(found.params[paramName.toLowerCase()], problem.message);
    else if (rest === 'id' || rest === 'gate' || rest === 'trigger' || rest === 'action') found[rest] = add(found[rest], problem.message);
    else found.other.push(problem.message);
  }
  return found;
}
