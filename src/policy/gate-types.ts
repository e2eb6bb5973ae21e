/**
 * What a gate is: its triggers and their parameters, each with a validator. The policy spec endpoint, upload
 * validation and (later) evaluation all read these definitions, so they cannot disagree.
 */
import type { TriggerEvaluator } from './evaluation-context.js';
import type { ParamValidator } from './params.js';

export type LifecycleState = 'active' | 'deprecated' | 'eol';

export interface ParamDefinition {
  name: string;
  description: string;
  required: boolean;
  example?: string;
  /** Older names accepted for the parameter (lower case). */
  aliases?: string[];
  validator: ParamValidator;
  state?: LifecycleState;
}

export interface TriggerDefinition {
  name: string;
  description: string;
  params: ParamDefinition[];
  state?: LifecycleState;
  supersededBy?: string;
  /** How the trigger fires; absent for end-of-life triggers, which never fire. */
  evaluate?: TriggerEvaluator;
}

export interface GateDefinition {
  name: string;
  description: string;
  state: LifecycleState;
  supersededBy?: string;
  triggers: TriggerDefinition[];
}
