/**
 * Periodic jobs: time-driven work as ordinary jobs on the queue. Each periodic kind keeps exactly one queued job
 * (its de-duplication key is `periodic:<kind>`), due at the kind's next slot; when a run ends (done or failed for
 * good) the runtime queues the following slot. Because only one job per kind can be waiting and a claim is
 * exclusive, every slot runs once across all nodes, on whichever node holding the kind's role claims it first.
 * Nodes holding the role queue the next slot at start and re-check every minute, so a chain broken by a crash
 * between a run's end and its successor being queued heals itself. Slots missed while no node ran are skipped.
 */
import { CronTime } from 'cron';
import type { JobDefinition, JobDefinitionSpec } from './definition.js';
import { defineJob } from './definition.js';
import type { JobQueue } from './queue.js';

/** A periodic job's payload: the slot (scheduled time) it runs for. */
export interface PeriodicPayload {
  slot: string;
}

export type PeriodicSchedule =
  /** The firings of a cron expression (five fields, or six with seconds first), in UTC. */
  | { cron: string }
  /** Every `everyMs` milliseconds, aligned to the epoch, so every node computes the same slots. */
  | { everyMs: number }
  /** The owner knows when it is next due (a scheduled query's next run, a notification's next retry); null: never. */
  | { nextAt: (after: Date) => Promise<Date | null> };

export interface PeriodicJobDefinition extends JobDefinition<PeriodicPayload> {
  periodic: true;
}

const PERIODIC_PAYLOAD = {
  type: 'object',
  properties: { slot: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T' } },
  required: ['slot'],
  additionalProperties: false,
} as const;

/** Defines a periodic kind; its schedule is given when it is registered (it comes from configuration). */
export function definePeriodicJob(spec: Omit<JobDefinitionSpec<PeriodicPayload>, 'schema' | 'dedupKey' | 'maxAttempts'> & { maxAttempts?: number }): PeriodicJobDefinition {
  return {
    ...defineJob<PeriodicPayload>({
      lane: 'upkeep',
      // A failed slot is not tried again: the next slot does the same work with fresher data.
      maxAttempts: 1,
      ...spec,
      schema: PERIODIC_PAYLOAD,
      dedupKey: () => periodicKey(spec.kind),
    }),
    periodic: true,
  };
}

export const PERIODIC_PREFIX = 'periodic:';

export function periodicKey(kind: string): string {
  return `${PERIODIC_PREFIX}${kind}`;
}

/** The first slot of the schedule strictly after `after`; null when a cron expression never fires again. */
export async function nextSlot(schedule: PeriodicSchedule, after: Date): Promise<Date | null> {
  if ('everyMs' in schedule) return new Date((Math.floor(after.getTime() / schedule.everyMs) + 1) * schedule.everyMs);
  if ('cron' in schedule) {
    try {
      return new CronTime(schedule.cron, 'UTC').getNextDateFrom(after, 'UTC').toJSDate();
    } catch {
      return null;
    }
  }
  return schedule.nextAt(after);
}

/** For `nextAt` schedules: when the owner's next due time is (after `after`), but `maxWaitMs` on at the latest. */
export function dueAtOrWithin(next: string | null, after: Date, maxWaitMs: number): Date {
  const latest = after.getTime() + maxWaitMs;
  return new Date(next ? Math.min(latest, Math.max(after.getTime() + 1, Date.parse(next))) : latest);
}

/** Makes a periodic kind's waiting run due now (its slot is now), e.g. when new work for it was recorded. */
export async function runPeriodicSoon(queue: { enqueue: JobQueue['enqueue'] }, definition: PeriodicJobDefinition): Promise<void> {
  await queue.enqueue(definition, { slot: new Date().toISOString() }, { onDuplicate: 'earliest' });
}

/**
 * Moves a periodic kind's waiting run to the first slot of its (changed) schedule after now, earlier or later, or
 * removes it when the schedule no longer fires; from any node. A run in progress queues its successor by the new
 * schedule when it ends.
 */
export async function reschedulePeriodic(queue: Pick<JobQueue, 'enqueue' | 'dropWaiting'>, definition: PeriodicJobDefinition, schedule: PeriodicSchedule): Promise<void> {
  const slot = await nextSlot(schedule, new Date());
  if (slot) await queue.enqueue(definition, { slot: slot.toISOString() }, { runAt: slot, onDuplicate: 'replace' });
  else await queue.dropWaiting(periodicKey(definition.kind));
}
