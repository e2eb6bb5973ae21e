/**
 * Reads the CISA Known Exploited Vulnerabilities catalog (https://www.cisa.gov/known-exploited-vulnerabilities-catalog),
 * which flags CVEs exploited in the wild. Only the CVE id and the date it was added decide anything downstream, so
 * only those are strict: an entry without them is skipped and counted; descriptive text is taken as written.
 * A catalog without its `vulnerabilities` array is not a catalog at all and throws.
 */
import { readFile } from 'node:fs/promises';
import type { OsvReadError } from '../osv/archive.js';
import { FeedFormatError } from './errors.js';

export interface KevEntry {
  cveId: string;
  vendorProject: string;
  product: string;
  vulnerabilityName: string;
  /** `YYYY-MM-DD`, the day CISA added the CVE to the catalog. */
  dateAdded: string;
  /** `YYYY-MM-DD`, the remediation deadline for US federal agencies. */
  dueDate?: string;
  /** `Known` or `Unknown` in the current catalog; kept as written. */
  knownRansomwareCampaignUse?: string;
  shortDescription?: string;
  requiredAction?: string;
}

export interface KevCatalog {
  catalogVersion?: string;
  dateReleased?: string;
  /** One per CVE id, in catalog order; a repeated id keeps its last entry. */
  entries: KevEntry[];
  /** Entries dropped for a missing or malformed CVE id or date. */
  skipped: number;
  /** Why entries were skipped, up to the first 100. */
  errors: OsvReadError[];
}

const MAX_ERRORS = 100;
const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a catalog already read as JSON; throws FeedFormatError when it has no `vulnerabilities` array. */
export function parseKevCatalog(json: unknown): KevCatalog {
  return parseCatalog(json);
}

/** Reads and parses a catalog file; invalid JSON is a FeedFormatError, an unreadable path throws as is. */
export async function readKevFile(path: string): Promise<KevCatalog> {
  const raw = await readFile(path, 'utf8');
  let json: unknown;
  try {
    // A byte-order mark is not JSON, but some tools write one.
    json = JSON.parse(raw.replace(/^\uFEFF/, '')) as unknown;
  } catch (err) {
    throw new FeedFormatError('kev', `invalid JSON: ${(err as Error).message}`, path);
  }
  return parseCatalog(json, path);
}

/** `source` names the file in a FeedFormatError. */
function parseCatalog(json: unknown, source?: string): KevCatalog {
  if (!isJsonObject(json) || !Array.isArray(json.vulnerabilities)) {
    throw new FeedFormatError('kev', 'not a KEV catalog: expected an object with a "vulnerabilities" array', source);
  }
  const catalog: KevCatalog = { entries: [], skipped: 0, errors: [] };
  const catalogVersion = text(json.catalogVersion);
  if (catalogVersion !== undefined) catalog.catalogVersion = catalogVersion;
  const dateReleased = text(json.dateReleased);
  if (dateReleased !== undefined) catalog.dateReleased = dateReleased;

  const byCve = new Map<string, KevEntry>();
  json.vulnerabilities.forEach((item: unknown, i) => {
    const parsed = parseEntry(item);
    if (typeof parsed === 'string') {
      catalog.skipped += 1;
      if (catalog.errors.length < MAX_ERRORS) catalog.errors.push({ source: `vulnerabilities[${i}]`, message: parsed });
      return;
    }
    // Delete first so a repeated id takes the position of its last (authoritative) occurrence.
    byCve.delete(parsed.cveId);
    byCve.set(parsed.cveId, parsed);
  });
  catalog.entries = [...byCve.values()];
  return catalog;
}

/** The entry, or the reason it was skipped. */
function parseEntry(item: unknown): KevEntry | string {
  if (!isJsonObject(item)) return 'expected an object';
  const cveId = text(item.cveID)?.toUpperCase();
  if (cveId === undefined || !CVE_ID.test(cveId)) return `cveID: expected a CVE id (CVE-YYYY-NNNN), got ${show(item.cveID)}`;
  const dateAdded = text(item.dateAdded);
  if (dateAdded === undefined || !DATE.test(dateAdded)) return `${cveId}: dateAdded: expected YYYY-MM-DD, got ${show(item.dateAdded)}`;
  const entry: KevEntry = {
    cveId,
    vendorProject: text(item.vendorProject) ?? '',
    product: text(item.product) ?? '',
    vulnerabilityName: text(item.vulnerabilityName) ?? '',
    dateAdded,
  };
  for (const key of ['dueDate', 'knownRansomwareCampaignUse', 'shortDescription', 'requiredAction'] as const) {
    const value = text(item[key]);
    if (value !== undefined) entry[key] = value;
  }
  return entry;
}

/** A non-blank string, trimmed; anything else reads as absent. */
function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** A value for an error message, cut short so a hostile entry cannot bloat the stored errors. */
function show(value: unknown): string {
  const shown = JSON.stringify(value ?? null);
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}
