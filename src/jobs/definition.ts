/**
 * Typed job definitions: what a kind of background work is, independent of who runs it. A definition names the
 * kind, the process role whose nodes run it, the JSON schema of its payload (checked when a job is queued and
 * again when it is claimed, so a payload written by another version of Vigil fails clearly instead of reaching a
 * handler half-formed), how often it may be tried, and how duplicates collapse. Modules that queue work import
 * the definition; only the module that owns the work registers a handler for it (src/jobs/registry.ts).
 */
import { Ajv as AjvClass, type ValidateFunction } from 'ajv';
import type { NodeRole } from '../system/node-roles.js';

/** A JSON schema (draft-07, as the API's own) for a job's payload. */
export type PayloadSchema = Record<string, unknown>;

/** The worker lane a kind runs in: `work` shares VIGIL_ANALYSIS_CONCURRENCY slots; `upkeep` has its own small pool. */
export type JobLane = 'work' | 'upkeep';

export interface JobDefinitionSpec<P> {
  kind: string;
  role: NodeRole;
  schema: PayloadSchema;
  /** Tries before the job fails for good; a try interrupted by a crash counts. */
  maxAttempts: number;
  lane?: JobLane;
  /**
   * Jobs with the same key collapse while one is queued (not yet claimed): queuing again answers the waiting job.
   * A job already running does not stop a new one from being queued behind it.
   */
  dedupKey?: (payload: P) => string;
}

export interface JobDefinition<P> extends Required<Omit<JobDefinitionSpec<P>, 'dedupKey'>> {
  dedupKey?: (payload: P) => string;
  /** Answers null when the payload fits the schema, else what is wrong with it. */
  check(payload: unknown): string | null;
  /** Phantom field: carries the payload type to enqueue() and register(); never set. */
  readonly payloadType?: P;
}

const ajv = new AjvClass({ allErrors: true, strict: true });
const kinds = new Map<string, JobDefinition<unknown>>();

export function defineJob<P>(spec: JobDefinitionSpec<P>): JobDefinition<P> {
  if (kinds.has(spec.kind)) throw new Error(`job kind '${spec.kind}' is defined twice`);
  const validate: ValidateFunction = ajv.compile(spec.schema);
  const definition: JobDefinition<P> = {
    lane: 'work',
    ...spec,
    check(payload) {
      if (validate(payload)) return null;
      return ajv.errorsText(validate.errors, { dataVar: 'payload' });
    },
  };
  kinds.set(spec.kind, definition as JobDefinition<unknown>);
  return definition;
}

/** Every defined kind (for the documentation check and /metrics labels). */
export function definedJobKinds(): string[] {
  return [...kinds.keys()].sort();
}

export class InvalidJobPayloadError extends Error {
  constructor(kind: string, problem: string) {
    super(`job '${kind}': ${problem}`);
    this.name = 'InvalidJobPayloadError';
  }
}
