/**
 * Checks a report needs beyond its schema (which the pipeline enforces): a usable timestamp, and references
 * between its parts (a container's pod, a pod's namespace) that resolve within the same report.
 */
import { InvalidError } from '../errors.js';
import type { ReportProblem } from './model.js';

/** Agents' clocks drift; a report this far ahead of ours is refused, as it would lock the cluster's history. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/** Problems listed in one error; a report with thousands of bad references says how many more there were. */
const MAX_LISTED_PROBLEMS = 100;

/**
 * The report's timestamp as the stored ISO form (UTC, milliseconds). A report older than the inventory's expiry
 * would be stored and swept away at once, so it is refused with the reason instead of silently vanishing.
 */
export function reportTime(timestamp: string, ttlSeconds: number, now = Date.now()): string {
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) throw invalidReport([{ location: 'body.timestamp', message: 'is not a valid date-time' }]);
  if (ms < now - ttlSeconds * 1000)
    throw invalidReport([
      {
        location: 'body.timestamp',
        message:
          `is older than the inventory expiry (the runtime setting inventory.ttl_seconds=${ttlSeconds}, default VIGIL_INVENTORY_TTL_SECONDS: what a report names expires after that long, ` +
          `so nothing seen before ${new Date(now - ttlSeconds * 1000).toISOString()} is kept); send the time the agent took the snapshot`,
      },
    ]);
  if (ms > now + MAX_CLOCK_SKEW_MS)
    throw invalidReport([{ location: 'body.timestamp', message: `is more than ${MAX_CLOCK_SKEW_MS / 60000} minutes in the future (server time ${new Date(now).toISOString()})` }]);
  return new Date(ms).toISOString();
}

export function invalidReport(problems: ReportProblem[]): InvalidError {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const more = problems.length - listed.length;
  const summary = listed.map((p) => `${p.location} ${p.message}`).join('; ') + (more > 0 ? `; and ${more} more` : '');
  return new InvalidError(`the report is inconsistent: ${summary}`, { errors: listed, ...(more > 0 ? { more_errors: more } : {}) });
}

/**
 * Collects the keys of a list of report entries, noting duplicates (the same uid or ARN twice in one snapshot
 * is a broken report, not two objects).
 */
export function keysOf<T>(
  entries: readonly T[],
  key: (e: T) => string,
  where: { list: string; field: string },
  problems: ReportProblem[],
): Set<string> {
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const k = key(e);
    if (seen.has(k)) problems.push({ location: `body.${where.list}.${i}.${where.field}`, message: `repeats ${k}, which an earlier entry already has` });
    seen.add(k);
  });
  return seen;
}

/** Notes each entry whose reference is set but names nothing in `known`. */
export function checkReferences<T>(
  entries: readonly T[],
  reference: (e: T) => string | undefined,
  known: ReadonlySet<string>,
  where: { list: string; field: string; target: string },
  problems: ReportProblem[],
): void {
  entries.forEach((e, i) => {
    const ref = reference(e);
    if (ref !== undefined && !known.has(ref))
      problems.push({ location: `body.${where.list}.${i}.${where.field}`, message: `names ${where.target} ${ref}, which is not in this report` });
  });
}
