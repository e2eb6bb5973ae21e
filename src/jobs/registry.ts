/**
 * Registers the job kinds of this node's roles with the worker, so it claims only those; workers call the same
 * domain modules the handlers call. Jobs of other kinds stay queued for a node that holds their role.
 */
import { ANALYZE_IMAGE_JOB, analyzeImageJob, failInterruptedAnalysis } from '../images/analyze.js';
import { ANALYZE_RUNNING_IMAGES_JOB, analyzeRunningImagesJob } from '../inventory/analysis-queue.js';
import type { Services } from '../service.js';
import type { NodeRole } from '../system/node-roles.js';
import { VULN_REMATCH_JOB, vulnRematchJob } from '../vulns/feed-admin.js';
import { FEED_SYNC_JOB, feedSyncJob, reevaluateQuietly } from '../vulns/feeds.js';
import { POLICY_REEVALUATE_JOB, reevaluateAccount } from '../policy/reevaluate.js';
import { failInterruptedRun, SCHEDULED_QUERY_JOB, scheduledQueryJob } from '../reports/scheduled/job.js';

/** The role whose nodes run each job kind (docs/architecture.md, "Process roles"). */
export const JOB_ROLES = {
  [ANALYZE_IMAGE_JOB]: 'analyzer',
  [ANALYZE_RUNNING_IMAGES_JOB]: 'analyzer',
  [FEED_SYNC_JOB]: 'feeds',
  [VULN_REMATCH_JOB]: 'feeds',
  [POLICY_REEVALUATE_JOB]: 'feeds',
  [SCHEDULED_QUERY_JOB]: 'reports',
} as const satisfies Record<string, NodeRole>;

export function registerJobs(services: Services): void {
  const roles = new Set<NodeRole>(services.config.roles);
  const held = (kind: keyof typeof JOB_ROLES) => roles.has(JOB_ROLES[kind]);
  if (held(ANALYZE_IMAGE_JOB))
    services.worker.register(
      ANALYZE_IMAGE_JOB,
      async (payload, job, context) => {
        const answer = await analyzeImageJob(services, payload, job, context);
        await reevaluateQuietly(services, payload.accountName, payload.imageDigest);
        return answer;
      },
      (payload, job) => failInterruptedAnalysis(services, payload, job),
    );
  if (held(FEED_SYNC_JOB)) services.worker.register(FEED_SYNC_JOB, feedSyncJob(services, services.feedProgress));
  if (held(VULN_REMATCH_JOB)) services.worker.register(VULN_REMATCH_JOB, vulnRematchJob(services));
  if (held(POLICY_REEVALUATE_JOB))
    services.worker.register(POLICY_REEVALUATE_JOB, async (payload: { accountName: string }) => {
      const outcome = await reevaluateAccount(services.db, payload.accountName);
      services.log.info({ account: payload.accountName, ...outcome }, 're-evaluated the account\'s images with its active policy');
    });
  if (held(ANALYZE_RUNNING_IMAGES_JOB)) services.worker.register(ANALYZE_RUNNING_IMAGES_JOB, analyzeRunningImagesJob(services));
  if (held(SCHEDULED_QUERY_JOB)) services.worker.register(SCHEDULED_QUERY_JOB, scheduledQueryJob(services), failInterruptedRun(services));
}
