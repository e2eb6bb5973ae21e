/**
 * Collection slots: a sample is stamped with the schedule occurrence it belongs to, not the moment a node got
 * round to it, so every node computes the same slot for a tick (the key they claim) and series line up on
 * the schedule. Schedules are read in UTC, like the timestamps they produce.
 */
import { CronTime } from 'cron';

export const METRICS_TIME_ZONE = 'UTC';

/** Beyond this, a schedule that has never fired is treated as having no occurrence. */
const MAX_LOOKBACK_MS = 50 * 366 * 86_400_000;

const wholeSecond = (at: Date) => new Date(Math.floor(at.getTime() / 1000) * 1000);

/**
 * The latest occurrence of `schedule` at or before `now`; with no schedule (collection off, on-demand only),
 * `now` to the second. A binary search over "the next occurrence after t", so it costs a few dozen steps
 * whatever the schedule (an every-second cron included).
 */
export function metricsSlot(schedule: string | null, now: Date): Date {
  if (!schedule) return wholeSecond(now);
  const time = new CronTime(schedule, METRICS_TIME_ZONE);
  const nowMs = now.getTime();
  // getNextDateFrom is strictly after its start, so next(nowMs) > nowMs always.
  const next = (ms: number) => time.getNextDateFrom(new Date(ms)).toMillis();
  let back = 60_000;
  while (next(nowMs - back) > nowMs) {
    back *= 2;
    if (back > MAX_LOOKBACK_MS) return wholeSecond(now);
  }
  // Invariant: next(lo) <= now < next(hi). The largest such lo sits just before the wanted occurrence.
  let lo = nowMs - back;
  let hi = nowMs;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (next(mid) <= nowMs) lo = mid;
    else hi = mid;
  }
  return new Date(next(lo));
}
