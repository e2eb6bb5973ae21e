/** Registers every job kind with the worker; workers call the same domain modules the handlers call. */
import { ANALYZE_IMAGE_JOB, analyzeImageJob, failInterruptedAnalysis } from '../images/analyze.js';
import type { Services } from '../service.js';
import { VULN_REMATCH_JOB, vulnRematchJob } from '../vulns/feed-admin.js';
import { FEED_SYNC_JOB, feedSyncJob } from '../vulns/feeds.js';

export function registerJobs(services: Services): void {
  services.worker.register(
    ANALYZE_IMAGE_JOB,
    (payload, job, context) => analyzeImageJob(services, payload, job, context),
    (payload, job) => failInterruptedAnalysis(services, payload, job),
  );
  services.worker.register(FEED_SYNC_JOB, feedSyncJob(services, services.feedProgress));
  services.worker.register(VULN_REMATCH_JOB, vulnRematchJob(services));
}
