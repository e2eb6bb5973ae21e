/**
 * Typed access to an untrusted SBOM document that fails with the field's full path (`components[3].licenses[0]`)
 * instead of crashing later on a wrong type. Absent optional fields are fine; present ones of the wrong type are not.
 */
import { FORMAT_LABELS, SbomReadError, type SbomFormat } from './read-errors.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export const child = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export class FieldReader {
  constructor(readonly format: SbomFormat) {}

  fail(path: string, problem: string): never {
    throw new SbomReadError(`${FORMAT_LABELS[this.format]} SBOM: ${path || 'document'} ${problem}`, this.format, path);
  }

  object(value: unknown, path: string): JsonObject {
    if (!isObject(value)) this.fail(path, `must be an object, got ${describeJson(value)}`);
    return value;
  }

  optionalObject(parent: JsonObject, key: string, path: string): JsonObject | undefined {
    const value = parent[key];
    return value === undefined || value === null ? undefined : this.object(value, child(path, key));
  }

  optionalString(parent: JsonObject, key: string, path: string): string | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') this.fail(child(path, key), `must be a string, got ${describeJson(value)}`);
    return value;
  }

  requiredString(parent: JsonObject, key: string, path: string): string {
    const value = this.optionalString(parent, key, path);
    if (value === undefined || value.trim() === '') this.fail(child(path, key), 'is required and must be a non-empty string');
    return value;
  }

  optionalArray(parent: JsonObject, key: string, path: string): unknown[] | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) this.fail(child(path, key), `must be an array, got ${describeJson(value)}`);
    return value;
  }

  /** Items of an optional array of objects, each with its path. */
  objects(parent: JsonObject, key: string, path: string): { item: JsonObject; path: string }[] {
    return (this.optionalArray(parent, key, path) ?? []).map((value, i) => {
      const itemPath = child(child(path, key), i);
      return { item: this.object(value, itemPath), path: itemPath };
    });
  }

  /** Items of an optional array of strings. */
  strings(parent: JsonObject, key: string, path: string): string[] {
    return (this.optionalArray(parent, key, path) ?? []).map((value, i) => {
      if (typeof value !== 'string') this.fail(child(child(path, key), i), `must be a string, got ${describeJson(value)}`);
      return value;
    });
  }
}
