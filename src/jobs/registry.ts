/**
 * Registers with this node's worker the job kinds of its roles (each definition names its role), so it claims only
 * those; workers call the same domain modules the handlers call. Jobs of other kinds stay queued for a node that
 * holds their role. Time-driven work is here too, as periodic kinds (./periodic.ts): nothing else in Vigil runs on
 * a timer of its own.
 */
import { applyArchiveRules, ARCHIVE_RULES_EVERY_MS, ARCHIVE_RULES_JOB } from '../archive/transitions.js';
import { ANALYZE_IMAGE_JOB, analyzeImageJob, failInterruptedAnalysis } from '../images/analyze.js';
import { pollWatches, WATCH_SWEEP_JOB } from '../images/watch.js';
import { ANALYZE_RUNNING_IMAGES_JOB, analyzeRunningImagesJob } from '../inventory/analysis-queue.js';
import { expireAllInventory, INVENTORY_EXPIRY_JOB } from '../inventory/expiry.js';
import { ARTIFACT_LIFECYCLE_RUN_JOB, ARTIFACT_LIFECYCLE_SCHEDULE, runLifecyclePolicies } from '../lifecycle/run.js';
import { NOTIFICATIONS_DELIVER_JOB } from '../notifications/dispatcher.js';
import { POLICY_REEVALUATE_IMAGES_JOB, POLICY_REEVALUATE_JOB, reevaluateAccount, reevaluateImagesQuietly } from '../policy/reevaluate.js';
import { METRICS_COLLECT_JOB } from '../reports/metrics/scheduler.js';
import { REPORTS_REFRESH_JOB } from '../reports/refresher.js';
import { failInterruptedRun, SCHEDULED_QUERY_JOB, scheduledQueryJob } from '../reports/scheduled/job.js';
import { SCHEDULED_QUERIES_DUE_JOB } from '../reports/scheduled/scheduler.js';
import type { Services } from '../service.js';
import { feedSyncSchedule, inventoryExpirySchedule, reportsRefreshSchedule } from '../settings/effects.js';
import { CORRECTIONS_REMATCH_JOB, correctionsRematchJob } from '../vulns/corrections/corrections.js';
import { VULN_REMATCH_JOB, vulnRematchJob } from '../vulns/feed-admin.js';
import { FEED_SYNC_JOB, FEED_SYNC_SCHEDULE_JOB, feedSyncJob, requestFeedSync, type FeedSyncHooks } from '../vulns/feeds.js';
import type { JobDefinition } from './definition.js';
import { definePeriodicJob } from './periodic.js';

/** Hourly: deletes old run records, so the jobs table holds recent history, not every periodic slot ever run. */
export const JOB_RECORDS_PRUNE_JOB = definePeriodicJob({ kind: 'job_records_prune', role: 'scheduler' });
/** Ended jobs are kept this long (a week), periodic runs an hour: they are many (a refresh every 2 s), and alike. */
const JOB_RECORD_RETENTION_MS = 7 * 86400_000;
const PERIODIC_RECORD_RETENTION_MS = 3600_000;

export function registerJobs(services: Services): void {
  const { config, worker } = services;
  const roles = new Set(config.roles);
  const held = (definition: Pick<JobDefinition<unknown>, 'role'>) => roles.has(definition.role);

  if (held(ANALYZE_IMAGE_JOB))
    worker.register(
      ANALYZE_IMAGE_JOB,
      async (payload, job, context) => {
        const answer = await analyzeImageJob(services, payload, job, context);
        await reevaluateImagesQuietly(services.db, services.log, payload.accountName, [payload.imageDigest]);
        return answer;
      },
      (payload, job) => failInterruptedAnalysis(services, payload, job),
    );
  if (held(ANALYZE_RUNNING_IMAGES_JOB)) worker.register(ANALYZE_RUNNING_IMAGES_JOB, analyzeRunningImagesJob(services));
  // A feed change re-evaluates the images whose findings it changed, as jobs: feeds never call into policy.
  const feedHooks: FeedSyncHooks = {
    async imagesChanged(accountName, imageDigests) {
      await services.jobs.enqueue(POLICY_REEVALUATE_IMAGES_JOB, { accountName, imageDigests }, { accountName });
      worker.wake();
    },
  };
  if (held(FEED_SYNC_JOB)) worker.register(FEED_SYNC_JOB, feedSyncJob(services, services.feedProgress, feedHooks));
  if (held(POLICY_REEVALUATE_IMAGES_JOB))
    worker.register(POLICY_REEVALUATE_IMAGES_JOB, (payload) => reevaluateImagesQuietly(services.db, services.log, payload.accountName, payload.imageDigests));
  if (held(VULN_REMATCH_JOB)) worker.register(VULN_REMATCH_JOB, vulnRematchJob(services));
  // A package correction re-matches the images it applies to; those whose findings changed are re-evaluated too.
  if (held(CORRECTIONS_REMATCH_JOB)) worker.register(CORRECTIONS_REMATCH_JOB, correctionsRematchJob(services, feedHooks));
  if (held(POLICY_REEVALUATE_JOB))
    worker.register(POLICY_REEVALUATE_JOB, async (payload) => {
      const outcome = await reevaluateAccount(services.db, payload.accountName);
      services.log.info({ account: payload.accountName, ...outcome }, "re-evaluated the account's images with its active policy");
    });
  if (held(SCHEDULED_QUERY_JOB)) worker.register(SCHEDULED_QUERY_JOB, scheduledQueryJob(services), failInterruptedRun(services));

  // Periodic kinds: one run per slot across every node holding the role.
  if (held(REPORTS_REFRESH_JOB))
    worker.registerPeriodic(REPORTS_REFRESH_JOB, reportsRefreshSchedule(services.settings), async () => {
      await services.reports.refresher.refreshNow();
    });
  if (held(NOTIFICATIONS_DELIVER_JOB) && config.notifications.dispatcher) {
    const { dispatcher } = services.notifications;
    worker.registerPeriodic(NOTIFICATIONS_DELIVER_JOB, dispatcher.schedule, (_payload, _job, context) => dispatcher.deliverDue(context.signal));
  }
  // Registered even while the schedule is off (the feeds.sync_schedule setting may turn it on): no run is queued then.
  if (held(FEED_SYNC_SCHEDULE_JOB) && config.feeds.sources.length > 0)
    worker.registerPeriodic(FEED_SYNC_SCHEDULE_JOB, feedSyncSchedule(services.settings), async () => {
      await requestFeedSync(services, { trigger: 'schedule' });
    });
  if (held(METRICS_COLLECT_JOB) && config.reports.metricsSchedule)
    worker.registerPeriodic(METRICS_COLLECT_JOB, { cron: config.reports.metricsSchedule }, async ({ slot }) => {
      await services.reports.metrics.collectNow(new Date(slot));
    });
  if (held(SCHEDULED_QUERIES_DUE_JOB) && config.reports.scheduler)
    worker.registerPeriodic(SCHEDULED_QUERIES_DUE_JOB, services.reports.scheduler.schedule, async () => {
      await services.reports.scheduler.runDue();
    });
  if (held(WATCH_SWEEP_JOB) && config.watchIntervalSeconds > 0)
    worker.registerPeriodic(WATCH_SWEEP_JOB, { everyMs: Math.min(config.watchIntervalSeconds, 30) * 1000 }, async () => {
      await pollWatches(services, config.watchIntervalSeconds);
    });
  if (held(INVENTORY_EXPIRY_JOB))
    worker.registerPeriodic(INVENTORY_EXPIRY_JOB, inventoryExpirySchedule(services.settings), () => expireAllInventory(services));
  // Artifact lifecycle policies delete old images of every account (src/lifecycle/run.ts).
  if (held(ARTIFACT_LIFECYCLE_RUN_JOB))
    worker.registerPeriodic(ARTIFACT_LIFECYCLE_RUN_JOB, ARTIFACT_LIFECYCLE_SCHEDULE, ({ slot }) => runLifecyclePolicies(services.db, services.log, slot));
  if (held(ARCHIVE_RULES_JOB))
    worker.registerPeriodic(ARCHIVE_RULES_JOB, { everyMs: ARCHIVE_RULES_EVERY_MS }, async () => {
      const moved = await applyArchiveRules(services.db);
      if (moved.length) services.log.info({ rules: moved.map((m) => ({ rule: m.rule_id, account: m.account_name, transition: m.transition, images: m.image_digests.length })) }, 'applied the archive rules');
    });
  if (held(JOB_RECORDS_PRUNE_JOB))
    worker.registerPeriodic(JOB_RECORDS_PRUNE_JOB, { cron: '41 * * * *' }, async () => {
      const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
      const deleted = (await services.jobs.pruneFinished(ago(PERIODIC_RECORD_RETENTION_MS), 'periodic')) + (await services.jobs.pruneFinished(ago(JOB_RECORD_RETENTION_MS)));
      if (deleted) services.log.info({ deleted }, 'deleted old job run records');
    });
}
