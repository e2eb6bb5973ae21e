/** Registers every job kind with the worker; workers call the same domain modules the handlers call. */
import { ANALYZE_IMAGE_JOB, analyzeImageJob, failInterruptedAnalysis } from '../images/analyze.js';
import type { Services } from '../service.js';

export function registerJobs(services: Services): void {
  services.worker.register(
    ANALYZE_IMAGE_JOB,
    (payload, job, context) => analyzeImageJob(services, payload, job, context),
    (payload, job) => failInterruptedAnalysis(services, payload, job),
  );
}
