/**
 * What the runtime settings drive that is not read on each use: the schedules of periodic kinds. Their slots are
 * computed from the setting in force when each run is queued; a change re-slots the waiting run at once (from any
 * node: the run is a row every node shares), and the log level is applied on the node that took the change.
 */
import { INVENTORY_EXPIRY_JOB, inventoryExpiryEveryMs } from '../inventory/expiry.js';
import { nextSlot, reschedulePeriodic, type PeriodicSchedule } from '../jobs/periodic.js';
import { REPORTS_REFRESH_JOB } from '../reports/refresher.js';
import type { Services } from '../service.js';
import { FEED_SYNC_SCHEDULE_JOB } from '../vulns/feeds.js';
import type { RuntimeSettings } from './runtime.js';

function everyMsOf(everyMs: () => Promise<number>): PeriodicSchedule {
  return { nextAt: async (after) => (await nextSlot({ everyMs: await everyMs() }, after))! };
}

/** The firings of feeds.sync_schedule; none while it is off. */
export function feedSyncSchedule(settings: RuntimeSettings): PeriodicSchedule {
  return {
    nextAt: async (after) => {
      const cron = await settings.get('feeds.sync_schedule');
      return cron === 'off' ? null : nextSlot({ cron }, after);
    },
  };
}

/** Every reports.refresh_interval_seconds. */
export function reportsRefreshSchedule(settings: RuntimeSettings): PeriodicSchedule {
  return everyMsOf(async () => (await settings.get('reports.refresh_interval_seconds')) * 1000);
}

/** As often as inventory.ttl_seconds, at least every five minutes. */
export function inventoryExpirySchedule(settings: RuntimeSettings): PeriodicSchedule {
  return everyMsOf(async () => inventoryExpiryEveryMs(await settings.get('inventory.ttl_seconds')));
}

/** Makes changed settings take effect now where they are not simply read on their next use. */
export async function applySettingChanges(services: Services, keys: readonly string[]): Promise<void> {
  // As src/jobs/registry.ts: without feed sources there is nothing to sync, and no node runs the schedule.
  if (keys.includes('feeds.sync_schedule') && services.config.feeds.sources.length > 0) await reschedulePeriodic(services.jobs, FEED_SYNC_SCHEDULE_JOB, feedSyncSchedule(services.settings));
  if (keys.includes('reports.refresh_interval_seconds')) await reschedulePeriodic(services.jobs, REPORTS_REFRESH_JOB, reportsRefreshSchedule(services.settings));
  if (keys.includes('inventory.ttl_seconds')) await reschedulePeriodic(services.jobs, INVENTORY_EXPIRY_JOB, inventoryExpirySchedule(services.settings));
  if (keys.includes('log_level')) await services.nodeLogLevel.sync();
  services.worker.wake();
}
