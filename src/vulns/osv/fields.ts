/**
 * Typed reads of untrusted JSON that name the offending field on failure. Every failure is an OsvRecordError
 * carrying a JSON path (`affected[0].ranges[1].type`) so a skipped record can be diagnosed from the count alone.
 * `null` counts as absent for optional fields: the schema allows it for several arrays and some exporters emit it.
 */
import { OsvRecordError } from './errors.js';

export type JsonObject = Record<string, unknown>;

export function fieldPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function expectObject(value: unknown, path: string): JsonObject {
  if (!isJsonObject(value)) throw new OsvRecordError(path || '(record)', `expected an object, got ${describe(value)}`);
  return value;
}

export function requireString(obj: JsonObject, key: string, parent: string): string {
  const path = fieldPath(parent, key);
  const value = obj[key];
  if (value === undefined || value === null) throw new OsvRecordError(path, 'is required');
  if (typeof value !== 'string') throw new OsvRecordError(path, `expected a string, got ${describe(value)}`);
  if (value.trim() === '') throw new OsvRecordError(path, 'must not be empty');
  return value;
}

export function optionalString(obj: JsonObject, key: string, parent: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new OsvRecordError(fieldPath(parent, key), `expected a string, got ${describe(value)}`);
  }
  return value;
}

export function optionalObject(obj: JsonObject, key: string, parent: string): JsonObject | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  return expectObject(value, fieldPath(parent, key));
}

/** An optional array; absent and null read as empty. */
export function optionalArray(obj: JsonObject, key: string, parent: string): unknown[] {
  const value = obj[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OsvRecordError(fieldPath(parent, key), `expected an array, got ${describe(value)}`);
  return value;
}

export function optionalStringArray(obj: JsonObject, key: string, parent: string): string[] {
  const path = fieldPath(parent, key);
  return optionalArray(obj, key, parent).map((item, i) => {
    if (typeof item !== 'string') throw new OsvRecordError(indexPath(path, i), `expected a string, got ${describe(item)}`);
    return item;
  });
}

/** RFC 3339 date-time, as the schema requires for modified/published/withdrawn (fractional seconds and offsets allowed). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function checkTimestamp(value: string, path: string): string {
  if (!RFC3339.test(value)) throw new OsvRecordError(path, `expected an RFC 3339 timestamp, got '${value}'`);
  return value;
}
