/**
 * Validates one OSV JSON document and turns it into an OsvRecord. Strictness follows what a field is used for:
 * anything that changes which versions match or how severe they are (range types, events, severity types,
 * timestamps including `withdrawn`) must be exactly as the schema says, because guessing there gives wrong
 * findings; descriptive fields (reference types, ecosystem names) are type-checked but open-ended. Unknown fields
 * are ignored, as the schema asks of clients reading newer minor versions.
 */
import { parseEcosystem } from './ecosystem.js';
import { OsvRecordError } from './errors.js';
import {
  checkTimestamp,
  expectObject,
  fieldPath,
  indexPath,
  optionalArray,
  optionalObject,
  optionalString,
  optionalStringArray,
  requireString,
  type JsonObject,
} from './fields.js';
import {
  OSV_EVENT_KINDS,
  OSV_RANGE_TYPES,
  OSV_SEVERITY_TYPES,
  type OsvAffected,
  type OsvEvent,
  type OsvEventKind,
  type OsvPackage,
  type OsvRange,
  type OsvRangeType,
  type OsvRecord,
  type OsvReference,
  type OsvSeverity,
  type OsvSeverityType,
} from './types.js';

/** Parses one record; throws OsvRecordError naming the first malformed field. */
export function parseOsvRecord(json: unknown): OsvRecord {
  const obj = expectObject(json, '');
  const id = requireString(obj, 'id', '').trim();
  try {
    return parseRecordBody(obj, id);
  } catch (err) {
    // Fields below id are read without knowing it; attach it so the caller's error list says which record.
    if (err instanceof OsvRecordError && err.recordId === undefined) throw new OsvRecordError(err.field, err.problem, id);
    throw err;
  }
}

/** Whether the record was withdrawn by its publisher and so must not produce findings. */
export function isWithdrawn(record: OsvRecord): boolean {
  return record.withdrawn !== undefined;
}

function parseRecordBody(obj: JsonObject, id: string): OsvRecord {
  const record: OsvRecord = {
    id,
    modified: checkTimestamp(requireString(obj, 'modified', ''), 'modified'),
    aliases: uniqueIds(optionalStringArray(obj, 'aliases', ''), id),
    related: uniqueIds(parseRelated(obj), id),
    severity: parseSeverities(obj, ''),
    affected: optionalArray(obj, 'affected', '').map((item, i) => parseAffected(item, indexPath('affected', i))),
    references: optionalArray(obj, 'references', '').map((item, i) => parseReference(item, indexPath('references', i))),
  };
  const schemaVersion = optionalString(obj, 'schema_version', '');
  if (schemaVersion !== undefined) record.schemaVersion = schemaVersion;
  for (const key of ['published', 'withdrawn'] as const) {
    const value = optionalString(obj, key, '');
    if (value !== undefined) record[key] = checkTimestamp(value, key);
  }
  const summary = optionalString(obj, 'summary', '');
  if (summary !== undefined) record.summary = summary;
  const details = optionalString(obj, 'details', '');
  if (details !== undefined) record.details = details;
  const databaseSpecific = optionalObject(obj, 'database_specific', '');
  if (databaseSpecific !== undefined) {
    record.databaseSpecific = databaseSpecific;
    const label = severityWord(databaseSpecific);
    if (label !== undefined) record.severityLabel = label;
  }
  return record;
}

/** Drops blanks, duplicates and the record's own id (some feeds list it among its aliases). */
function uniqueIds(ids: string[], ownId: string): string[] {
  const seen = new Set<string>();
  for (const raw of ids) {
    const value = raw.trim();
    if (value !== '' && value !== ownId) seen.add(value);
  }
  return [...seen];
}

/** `related` is a list of ids; one schema revision allowed `{type, id}` objects, so their ids are taken too. */
function parseRelated(obj: JsonObject): string[] {
  return optionalArray(obj, 'related', '').map((item, i) => {
    if (typeof item === 'string') return item;
    const path = indexPath('related', i);
    return requireString(expectObject(item, path), 'id', path);
  });
}

function parseSeverities(obj: JsonObject, parent: string): OsvSeverity[] {
  const path = fieldPath(parent, 'severity');
  return optionalArray(obj, 'severity', parent).map((item, i) => {
    const itemPath = indexPath(path, i);
    const entry = expectObject(item, itemPath);
    const type = requireString(entry, 'type', itemPath);
    if (!(OSV_SEVERITY_TYPES as readonly string[]).includes(type)) {
      throw new OsvRecordError(fieldPath(itemPath, 'type'), `unknown severity type '${type}' (expected ${OSV_SEVERITY_TYPES.join(', ')})`);
    }
    return { type: type as OsvSeverityType, score: requireString(entry, 'score', itemPath).trim() };
  });
}

function parseAffected(value: unknown, path: string): OsvAffected {
  const obj = expectObject(value, path);
  const affected: OsvAffected = {
    severity: parseSeverities(obj, path),
    ranges: optionalArray(obj, 'ranges', path).map((item, i) => parseRange(item, indexPath(fieldPath(path, 'ranges'), i))),
    versions: optionalStringArray(obj, 'versions', path),
  };
  const pkg = optionalObject(obj, 'package', path);
  if (pkg !== undefined) affected.package = parsePackage(pkg, fieldPath(path, 'package'));
  const ecosystemSpecific = optionalObject(obj, 'ecosystem_specific', path);
  if (ecosystemSpecific !== undefined) affected.ecosystemSpecific = ecosystemSpecific;
  const databaseSpecific = optionalObject(obj, 'database_specific', path);
  if (databaseSpecific !== undefined) affected.databaseSpecific = databaseSpecific;
  const label = (ecosystemSpecific && severityWord(ecosystemSpecific)) ?? (databaseSpecific && severityWord(databaseSpecific));
  if (label) affected.severityLabel = label;
  return affected;
}

function parsePackage(obj: JsonObject, path: string): OsvPackage {
  const pkg: OsvPackage = {
    ecosystem: parseEcosystem(requireString(obj, 'ecosystem', path).trim()),
    name: requireString(obj, 'name', path).trim(),
  };
  const purl = optionalString(obj, 'purl', path);
  if (purl !== undefined && purl.trim() !== '') pkg.purl = purl.trim();
  return pkg;
}

function parseRange(value: unknown, path: string): OsvRange {
  const obj = expectObject(value, path);
  const type = requireString(obj, 'type', path);
  if (!(OSV_RANGE_TYPES as readonly string[]).includes(type)) {
    throw new OsvRecordError(fieldPath(path, 'type'), `unknown range type '${type}' (expected ${OSV_RANGE_TYPES.join(', ')})`);
  }
  const eventsPath = fieldPath(path, 'events');
  if (obj.events === undefined || obj.events === null) throw new OsvRecordError(eventsPath, 'is required');
  const events = optionalArray(obj, 'events', path).map((item, i) => parseEvent(item, indexPath(eventsPath, i)));
  // The schema requires an introduced event: without one the evaluation can never report "affected", which would
  // silently hide the advisory rather than flag the record as broken.
  if (!events.some((e) => e.kind === 'introduced')) throw new OsvRecordError(eventsPath, "needs at least one 'introduced' event");
  const range: OsvRange = { type: type as OsvRangeType, events };
  const repo = optionalString(obj, 'repo', path);
  if (repo !== undefined) range.repo = repo;
  const databaseSpecific = optionalObject(obj, 'database_specific', path);
  if (databaseSpecific !== undefined) range.databaseSpecific = databaseSpecific;
  return range;
}

/** `{"fixed": "1.2"}`: exactly one known key with a non-empty string value. */
function parseEvent(value: unknown, path: string): OsvEvent {
  const obj = expectObject(value, path);
  const keys = Object.keys(obj);
  const unknown = keys.find((k) => !(OSV_EVENT_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw new OsvRecordError(path, `unknown event key '${unknown}' (expected one of ${OSV_EVENT_KINDS.join(', ')})`);
  if (keys.length !== 1) throw new OsvRecordError(path, `an event has exactly one of ${OSV_EVENT_KINDS.join(', ')}, got ${keys.length}`);
  const kind = keys[0] as OsvEventKind;
  return { kind, version: requireString(obj, kind, path).trim() };
}

function parseReference(value: unknown, path: string): OsvReference {
  const obj = expectObject(value, path);
  return { type: requireString(obj, 'type', path).trim(), url: requireString(obj, 'url', path).trim() };
}

/** A `severity` string inside a database/ecosystem-specific block (GitHub's `MODERATE`, RustSec's `HIGH`). */
function severityWord(block: JsonObject): string | undefined {
  const value = block.severity;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
