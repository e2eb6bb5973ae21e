/**
 * Array helpers for inputs of any length. `target.push(...items)` and `Math.max(...items)` pass every item as a
 * call argument, which overflows the stack (RangeError: Maximum call stack size exceeded) somewhere past 100 000
 * items; these loop instead.
 */

/** Appends every item to `target`. */
export function appendAll<T>(target: T[], items: Iterable<T>): void {
  for (const item of items) target.push(item);
}

/** The largest of the values, or `otherwise` for none. */
export function maxOf(values: readonly number[], otherwise: number): number {
  return values.length ? values.reduce((a, b) => Math.max(a, b)) : otherwise;
}
