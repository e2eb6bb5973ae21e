/**
 * Artifact lifecycle policies: what a policy is, what its conditions select, and the checks the schema cannot
 * make. Field names are upstream's (`policy_conditions`, `days_since_analyzed`, ...); the `selector` is Vigil's.
 */
import { InvalidError } from '../errors.js';
import { patternMatches } from '../policy/evaluate-policy.js';

/** At most this many policies (not deleted) exist: every run reads them all. */
export const MAX_POLICIES = 100;
/** At most this many versions of one policy are kept; an update beyond it is refused. */
export const MAX_VERSIONS = 1000;

export type LifecycleAction = 'delete';

export interface ImageSelector {
  registry: string;
  repository: string;
  tag: string;
}

export interface PolicyConditions {
  artifact_type: 'image';
  days_since_analyzed: number;
  even_if_exists_in_runtime_inventory: boolean;
  selector: ImageSelector;
}

export interface VersionedConditions extends PolicyConditions {
  version: number;
}

/** A policy as the API sends it (the service's fields ignored). */
export interface PolicyInput {
  action: LifecycleAction;
  name: string;
  description?: string;
  enabled?: boolean;
  policy_conditions: {
    artifact_type: 'image';
    days_since_analyzed: number;
    even_if_exists_in_runtime_inventory: boolean;
    selector?: Partial<ImageSelector>;
  };
}

export interface LifecyclePolicy {
  uuid: string;
  name: string;
  description?: string;
  action: LifecycleAction;
  enabled: boolean;
  current_version: number;
  created_at: string;
  updated_at: string;
  deleted_at?: string;
}

/** The stored form of the input: every selector field present (`*` when not given), the service's fields gone. */
export function normalisedConditions(input: PolicyInput): PolicyConditions {
  const c = input.policy_conditions;
  const selector = { registry: c.selector?.registry ?? '*', repository: c.selector?.repository ?? '*', tag: c.selector?.tag ?? '*' };
  const blank = (Object.keys(selector) as (keyof ImageSelector)[]).filter((k) => selector[k].trim() === '');
  if (blank.length)
    throw new InvalidError('a selector field is blank', { errors: blank.map((k) => ({ location: `body.policy_conditions.selector.${k}`, message: 'must not be blank' })) });
  return {
    artifact_type: c.artifact_type,
    days_since_analyzed: c.days_since_analyzed,
    even_if_exists_in_runtime_inventory: c.even_if_exists_in_runtime_inventory,
    selector,
  };
}

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new InvalidError('the policy name is blank', { errors: [{ location: 'body.name', message: 'must not be blank' }] });
  return trimmed;
}

/** The instant before which an image's analysis must lie; null when the policy ignores the age (days <= 0). */
export function analyzedBefore(conditions: PolicyConditions, now: number): string | null {
  return conditions.days_since_analyzed > 0 ? new Date(now - conditions.days_since_analyzed * 86_400_000).toISOString() : null;
}

const isCatchAll = (s: ImageSelector) => s.registry === '*' && s.repository === '*' && s.tag === '*';

/** Whether an image with these current tags is selected (patterns as the policy mappings': `*`, `regexp:`). */
export function selectorMatches(selector: ImageSelector, tags: readonly { registry: string; repo: string; tag: string }[]): boolean {
  if (tags.length === 0) return isCatchAll(selector);
  return tags.some((t) => patternMatches(selector.registry, t.registry) && patternMatches(selector.repository, t.repo) && patternMatches(selector.tag, t.tag));
}
