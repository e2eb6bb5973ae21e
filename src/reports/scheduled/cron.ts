/** Cron schedules of scheduled queries: what is accepted, and when a schedule fires next (always in UTC). */
import { CronTime, validateCronExpression } from 'cron';
import { ReportInputError } from '../errors.js';

const MAX_LENGTH = 128;

/**
 * The schedule in canonical form (single spaces), or a ReportInputError naming `cronSchedule`. Five fields
 * (minute hour day month weekday) or six with seconds first; the cron package's presets (`@daily`) are not
 * accepted, so a schedule always reads the same way in every client.
 */
export function checkCronSchedule(expression: string): string {
  const fields = expression.trim().split(/\s+/).filter(Boolean);
  if (expression.length > MAX_LENGTH) throw new ReportInputError(`cronSchedule is longer than ${MAX_LENGTH} characters`, 'cronSchedule');
  if (fields.length !== 5 && fields.length !== 6)
    throw new ReportInputError(
      `cronSchedule "${expression}" has ${fields.length} fields; write five (minute hour day month weekday, e.g. "0 6 * * 1") or six with seconds first`,
      'cronSchedule',
    );
  const canonical = fields.join(' ');
  const check = validateCronExpression(canonical);
  if (!check.valid) throw new ReportInputError(`cronSchedule "${expression}" is not a valid cron expression: ${check.error?.message ?? 'rejected'}`, 'cronSchedule');
  // Valid fields can still name no real time (February 30th).
  if (nextRunAt(canonical) === null) throw new ReportInputError(`cronSchedule "${expression}" never fires (no such date in the coming years)`, 'cronSchedule');
  return canonical;
}

/**
 * The schedule's next firing after now, as an ISO timestamp; null when it has none within the cron package's
 * horizon of some years (it throws then), so a schedule like February 29th on a Monday simply stops.
 */
export function nextRunAt(expression: string): string | null {
  try {
    return new CronTime(expression, 'UTC').sendAt().toJSDate().toISOString();
  } catch {
    return null;
  }
}
