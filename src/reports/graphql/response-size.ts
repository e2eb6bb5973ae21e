/**
 * The size of a GraphQL answer before it is serialized: a walk of the result that adds up its JSON (strings by
 * their UTF-8 length, escapes not counted) and stops as soon as the total passes a bound, so checking an answer
 * costs no more than the bound however large the answer is. An oversize answer becomes one clear error instead of
 * a body of hundreds of megabytes (or a string too long for JSON.stringify).
 */
import { GraphQLError, type ExecutionResult } from 'graphql';

/** The JSON size of `value` in bytes, or some number above `stopAbove` once the walk has passed it. */
export function estimatedJsonBytes(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && bytes <= stopAbove) {
    let v = pending.pop();
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON();
    if (typeof v === 'string') bytes += Buffer.byteLength(v) + 2;
    else if (typeof v === 'number' || typeof v === 'boolean') bytes += String(v).length;
    else if (Array.isArray(v)) {
      bytes += 1 + Math.max(v.length, 1);
      for (const item of v) pending.push(item);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      bytes += 1 + Math.max(entries.length, 1);
      for (const [key, item] of entries) {
        bytes += Buffer.byteLength(key) + 3;
        pending.push(item);
      }
    } else bytes += 4; // null (and what JSON writes as null)
  }
  return bytes;
}

/** The result, or an error in its place when its JSON would be larger than `maxBytes`. */
export function boundedResult(result: ExecutionResult, maxBytes: number): ExecutionResult {
  if (estimatedJsonBytes(result, maxBytes) <= maxBytes) return result;
  return {
    data: null,
    errors: [
      new GraphQLError(`the answer is larger than ${maxBytes} bytes (VIGIL_GRAPHQL_MAX_RESPONSE_BYTES); ask for fewer results (limit) or fewer fields`, {
        extensions: { code: 'RESPONSE_TOO_LARGE' },
      }),
    ],
  };
}
