/**
 * The policy document as Vigil stores and evaluates it: the upstream v2 `Policy` shape, taken from the spec's
 * generated types so the contract and the engine cannot disagree.
 */
import type { components } from '../../generated/openapi-types.js';

type Schemas = components['schemas'];

export type PolicyDocument = Schemas['Policy'];
export type RuleSet = Schemas['RuleSet'];
export type PolicyRule = Schemas['PolicyRule'];
export type PolicyRuleParam = Schemas['PolicyRuleParam'];
export type Allowlist = Schemas['Allowlist'];
export type AllowlistItem = Schemas['AllowlistItem'];
export type MappingRule = Schemas['MappingRule'];
export type ImageSelectionRule = Schemas['ImageSelectionRule'];
export type ImageRef = Schemas['ImageRef'];
export type PolicyAction = 'GO' | 'STOP' | 'WARN';
