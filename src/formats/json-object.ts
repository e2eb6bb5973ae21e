/** Defensive reading of untrusted JSON manifests: anything unexpected becomes `undefined`, never an exception. */

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The top-level object of a JSON document, or undefined when the bytes are not a JSON object (garbage, arrays, empty). */
export function parseJsonObject(content: Buffer): JsonObject | undefined {
  // Editors on Windows sometimes save manifests with a byte-order mark, which JSON.parse rejects.
  const text = content.toString('utf8').replace(/^\uFEFF/, '');
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A trimmed, non-empty string field; other types (numbers, objects) are treated as absent. */
export function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Drops keys whose value is undefined so metadata stays small and JSON round-trips to an equal object. */
export function withoutUndefined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}
