/** The job that runs a queued execution of a scheduled query (scheduled and executeScheduledQueryAsync runs). */
import type { ExhaustedHandler, JobHandler } from '../../jobs/worker.js';
import type { Services } from '../../service.js';
import { failExecution } from './executions.js';

export const SCHEDULED_QUERY_JOB = 'scheduled_query_run';

export interface ScheduledQueryJob {
  executionUuid: string;
}

export function scheduledQueryJob(services: Services): JobHandler {
  return async (payload: ScheduledQueryJob) => {
    await services.reports.scheduler.runQueued(payload.executionUuid);
  };
}

/** A run that took its process down every time is not tried again; its execution fails with the reason. */
export function failInterruptedRun(services: Services): ExhaustedHandler {
  return (payload: ScheduledQueryJob, job) =>
    failExecution(services.db, payload.executionUuid, `the run was interrupted ${job.maxAttempts} times without finishing; the process may have crashed on it`);
}
