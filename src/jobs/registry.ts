/** Registers every job kind with the worker; workers call the same domain modules the handlers call. */
import { ANALYZE_IMAGE_JOB, analyzeImageJob, failInterruptedAnalysis } from '../images/analyze.js';
import { ANALYZE_RUNNING_IMAGES_JOB, analyzeRunningImagesJob } from '../inventory/analysis-queue.js';
import type { Services } from '../service.js';
import { VULN_REMATCH_JOB, vulnRematchJob } from '../vulns/feed-admin.js';
import { FEED_SYNC_JOB, feedSyncJob, reevaluateQuietly } from '../vulns/feeds.js';
import { POLICY_REEVALUATE_JOB, reevaluateAccount } from '../policy/reevaluate.js';
import { failInterruptedRun, SCHEDULED_QUERY_JOB, scheduledQueryJob } from '../reports/scheduled/job.js';

export function registerJobs(services: Services): void {
  services.worker.register(
    ANALYZE_IMAGE_JOB,
    async (payload, job, context) => {
      const answer = await analyzeImageJob(services, payload, job, context);
      await reevaluateQuietly(services, payload.accountName, payload.imageDigest);
      return answer;
    },
    (payload, job) => failInterruptedAnalysis(services, payload, job),
  );
  services.worker.register(FEED_SYNC_JOB, feedSyncJob(services, services.feedProgress));
  services.worker.register(VULN_REMATCH_JOB, vulnRematchJob(services));
  services.worker.register(POLICY_REEVALUATE_JOB, async (payload: { accountName: string }) => {
    const outcome = await reevaluateAccount(services.db, payload.accountName);
    services.log.info({ account: payload.accountName, ...outcome }, 're-evaluated the account\'s images with its active policy');
  });
  services.worker.register(ANALYZE_RUNNING_IMAGES_JOB, analyzeRunningImagesJob(services));
  services.worker.register(SCHEDULED_QUERY_JOB, scheduledQueryJob(services), failInterruptedRun(services));
}
