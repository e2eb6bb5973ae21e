/** Timestamps are stored and shown as ISO 8601 UTC with milliseconds, so they also sort as strings. */
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoFromNow(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString();
}

/** Milliseconds since the epoch cut down to the whole second. */
export function floorToSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/**
 * A stored timestamp shown without its fraction of a second (`2026-01-02T03:04:05Z`), for the fields whose schema
 * allows no fraction (as the established API's API keys). Storage keeps the millisecond form, which sorts as text.
 */
export function wholeSecondsIso(iso: string): string {
  return new Date(floorToSecond(Date.parse(iso))).toISOString().replace('.000Z', 'Z');
}
