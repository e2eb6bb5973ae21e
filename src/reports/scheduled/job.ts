/** The job that runs a queued execution of a scheduled query (scheduled and executeScheduledQueryAsync runs). */
import { defineJob } from '../../jobs/definition.js';
import type { ExhaustedHandler, JobHandler } from '../../jobs/worker.js';
import type { Services } from '../../service.js';
import { failExecution } from './executions.js';

export interface ScheduledQueryJob {
  executionUuid: string;
}

export const SCHEDULED_QUERY_JOB = defineJob<ScheduledQueryJob>({
  kind: 'scheduled_query_run',
  role: 'reports',
  maxAttempts: 3,
  schema: { type: 'object', properties: { executionUuid: { type: 'string', minLength: 1 } }, required: ['executionUuid'], additionalProperties: false },
});

export function scheduledQueryJob(services: Services): JobHandler<ScheduledQueryJob> {
  return async (payload) => {
    await services.reports.scheduler.runQueued(payload.executionUuid);
  };
}

/** A run that took its process down every time is not tried again; its execution fails with the reason. */
export function failInterruptedRun(services: Services): ExhaustedHandler<ScheduledQueryJob> {
  return (payload, job) =>
    failExecution(services.db, payload.executionUuid, `the run was interrupted ${job.maxAttempts} times without finishing; the process may have crashed on it`);
}
