/**
 * The size of a GraphQL answer before it is serialized: a walk of the result that adds up the characters of its
 * JSON (bytes for ASCII text; escapes and multi-byte UTF-8 are not counted extra, which keeps the walk about three
 * times faster than JSON.stringify) and stops as soon as the total passes a bound, so checking an answer costs no
 * more than the bound however large it is. An oversize answer becomes one clear error instead of a body of
 * hundreds of megabytes (or a string too long for JSON.stringify).
 */
import { GraphQLError, type ExecutionResult } from 'graphql';

/** The JSON length of `value` in characters, or some number above `stopAbove` once the walk has passed it. */
export function estimatedJsonBytes(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && bytes <= stopAbove) {
    const v = pending.pop();
    if (typeof v === 'string') bytes += v.length + 2;
    else if (typeof v === 'object' && v !== null) {
      if (Array.isArray(v)) {
        bytes += 1 + (v.length || 1);
        for (let i = 0; i < v.length; i++) pending.push(v[i]);
      } else if (typeof (v as { toJSON?: unknown }).toJSON === 'function') pending.push((v as { toJSON(): unknown }).toJSON());
      else {
        let entries = 0;
        // Results are plain objects (or null-prototype ones): for-in sees exactly their own keys.
        for (const key in v) {
          const item = (v as Record<string, unknown>)[key];
          if (item === undefined) continue; // left out of JSON
          entries++;
          bytes += key.length + 3;
          pending.push(item);
        }
        bytes += 1 + (entries || 1);
      }
    } else if (typeof v === 'number' || typeof v === 'boolean') bytes += String(v).length;
    else bytes += 4; // null, and what JSON writes as null
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
