/**
 * What else happens when an evaluation is stored. Policy knows nothing of who listens (alerts do, wired in the
 * composition, src/service.ts); observers run inside the transaction that stores the evaluation, so what they
 * write commits (or not) with it.
 */
import type { Db } from '../db/index.js';
import type { FinalAction, PolicyEvaluationResult } from './evaluate-policy.js';

/** A finding that made the evaluation STOP. */
export interface StopTrigger {
  gate: string;
  trigger: string;
  trigger_id: string;
  rule_id: string;
}

export interface StoredEvaluation {
  accountName: string;
  imageDigest: string;
  tag: string;
  policyId: string;
  /** Whether the evaluated policy is the account's active one (a check may name another). */
  policyActive: boolean;
  /** The stored row's id. */
  evaluationId: string;
  status: PolicyEvaluationResult['status'];
  finalAction: FinalAction;
  finalActionReason: PolicyEvaluationResult['final_action_reason'];
  evaluationTime: string;
  /** Every STOP finding (allowlisted ones are GO, so not here). */
  stopTriggers: StopTrigger[];
}

export type EvaluationObserver = (trx: Db, evaluation: StoredEvaluation) => Promise<unknown>;

const observers = new Set<EvaluationObserver>();

/** Process-wide and idempotent, like event subscribers: observing with one function twice runs it once. */
export function observeStoredEvaluations(observer: EvaluationObserver): void {
  observers.add(observer);
}

export async function evaluationStored(trx: Db, evaluation: StoredEvaluation): Promise<void> {
  for (const observer of observers) await observer(trx, evaluation);
}

export function stopTriggersOf(result: PolicyEvaluationResult): StopTrigger[] {
  return (result.details?.findings ?? [])
    .filter((f) => f.action === 'stop')
    .map((f) => ({ gate: f.gate, trigger: f.trigger, trigger_id: f.trigger_id, rule_id: f.rule_id }));
}
