/** Timestamps are stored and shown as ISO 8601 UTC with milliseconds, so they also sort as strings. */
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoFromNow(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString();
}
