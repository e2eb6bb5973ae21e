/** Levenshtein distance (insertions, deletions, substitutions), for "did you mean" suggestions on short names. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/**
 * The candidate nearest to `name`, or null when none is near enough to be a likely typo: at most a quarter of the
 * name's length apart (and at least 2 edits allowed). Names longer than `maxLength` get no suggestion (bounded work).
 */
export function closestName(name: string, candidates: readonly string[], maxLength = 256): string | null {
  if (name.length > maxLength) return null;
  const limit = Math.max(2, Math.floor(name.length / 4));
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
