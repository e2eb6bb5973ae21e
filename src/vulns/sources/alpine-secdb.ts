/**
 * Reads the Alpine security database (alpinelinux/alpine-secdb: one YAML file per release and repository, mapping each
 * package's fixed versions to the ids they fix) and turns it into OSV records, so the matcher and the store treat it
 * like any OSV feed. secdb is organised by package and OSV by vulnerability, so every file is read before anything
 * is yielded: one record per id, with an `affected` entry per (release, package) that names it, holding a range per
 * version line the id was fixed on (see secfixRanges).
 * A file that is not valid secdb YAML is skipped and counted (the other releases stay usable); a line naming no
 * recognisable id is skipped and counted; an unreadable path throws, since a partial feed must not pass for a full one.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import type { OsvReadError, OsvReadOptions, OsvReadResult, OsvReadStats } from '../osv/archive.js';
import { OsvRecordError } from '../osv/errors.js';
import { parseOsvRecord } from '../osv/record.js';
import type { OsvRecord } from '../osv/types.js';
import { apkComparator, isValidApkVersion } from '../../ecosystems/apk/versions.js';

/**
 * secdb has no dates. Feed sync detects changes by a digest of the record's content, so any stable value works and
 * a fixed one keeps an unchanged advisory from looking updated on every sync (a "now" would change every time).
 */
export const ALPINE_SECDB_MODIFIED = '1970-01-01T00:00:00Z';

/** A fixed version of `0` means the package was never affected (listed to silence scanners), not "fixed in 0". */
const NEVER_AFFECTED = '0';
const DEFAULT_MAX_ERRORS = 100;

/** An ECOSYSTEM range as OSV JSON: `introduced` (inclusive) up to `fixed` (exclusive). */
export interface SecfixRange {
  type: 'ECOSYSTEM';
  events: [{ introduced: string }, { fixed: string }];
}

/** What secdb says about one id for one (release, package): every version it is listed as fixed in. */
interface SecfixFacts {
  ecosystem: string;
  name: string;
  fixes: Set<string>;
}

/** Facts per vulnerability id, keyed by (release, package), so a fact listed twice is kept once. */
type Merged = Map<string, Map<string, SecfixFacts>>;

type JsonObject = Record<string, unknown>;

/** Records of one secdb YAML file or of every `*.yaml`/`*.yml` file below a directory (sorted order), merged by id. */
export function readAlpineSecdbPath(path: string, options: OsvReadOptions = {}): OsvReadResult {
  const stats: OsvReadStats = { read: 0, skipped: 0, errors: [] };
  const skip = skipper(stats, options.maxErrors ?? DEFAULT_MAX_ERRORS);
  return { records: records(path, stats, skip), stats };
}

type Skip = (source: string, message: string, field?: string) => void;

function skipper(stats: OsvReadStats, maxErrors: number): Skip {
  return (source, message, field) => {
    stats.skipped += 1;
    const error: OsvReadError = { source, message, ...(field ? { field } : {}) };
    if (stats.errors.length < maxErrors) stats.errors.push(error);
  };
}

async function* records(path: string, stats: OsvReadStats, skip: Skip): AsyncGenerator<OsvRecord> {
  const merged: Merged = new Map();
  const files = (await stat(path)).isDirectory() ? yamlFilesBelow(path) : single(path);
  for await (const file of files) {
    const doc = parseSecdbYaml(await readFile(file, 'utf8'), file, skip);
    if (doc !== undefined) collectFile(doc, file, merged, skip);
  }
  for (const id of [...merged.keys()].sort(compareStrings)) {
    const record = toRecord(id, [...merged.get(id)!.values()], skip);
    if (record === undefined) continue;
    stats.read += 1;
    yield record;
  }
}

async function* single(path: string): AsyncGenerator<string> {
  yield path;
}

/** `*.yaml`/`*.yml` files below dir, depth first in name order. Symlinked directories are not entered, so a loop cannot trap the walk. */
async function* yamlFilesBelow(dir: string): AsyncGenerator<string> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => compareStrings(a.name, b.name));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* yamlFilesBelow(path);
    else if (/\.ya?ml$/i.test(entry.name) && (entry.isFile() || (entry.isSymbolicLink() && (await stat(path)).isFile()))) yield path;
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface SecdbFile {
  /** `Alpine:v3.11`. */
  ecosystem: string;
  packages: unknown[];
}

/**
 * The release and package list of one file, or undefined after counting why it is unusable. FAILSAFE_SCHEMA keeps
 * every scalar a string: with the default schema `1.10` would become the number 1.1 and `0` the number 0.
 */
function parseSecdbYaml(text: string, file: string, skip: Skip): SecdbFile | undefined {
  let doc: unknown;
  try {
    doc = yaml.load(text, { schema: yaml.FAILSAFE_SCHEMA, filename: file });
  } catch (err) {
    if (!(err instanceof yaml.YAMLException)) throw err;
    // mark is typed as always present but is missing on some exceptions.
    const mark = err.mark as yaml.YAMLException['mark'] | undefined;
    skip(file, `invalid YAML${mark ? ` at line ${mark.line + 1}` : ''}: ${err.reason}`);
    return undefined;
  }
  if (!isJsonObject(doc)) {
    skip(file, 'not an Alpine secdb file: expected a mapping with distroversion and packages');
    return undefined;
  }
  const release = typeof doc.distroversion === 'string' ? doc.distroversion.trim() : '';
  if (!/^v?\d+(\.\d+)*$|^edge$/.test(release)) {
    skip(file, `distroversion: expected a release such as v3.11, got ${JSON.stringify(doc.distroversion ?? null)}`, 'distroversion');
    return undefined;
  }
  // `packages:` with nothing under it reads as null: a release without fixes, not a broken file.
  if (doc.packages !== null && !Array.isArray(doc.packages)) {
    skip(file, 'packages: expected a list', 'packages');
    return undefined;
  }
  // The OSV schema spells Alpine releases with a leading v (`Alpine:v3.11`).
  return { ecosystem: `Alpine:${/^\d/.test(release) ? `v${release}` : release}`, packages: doc.packages ?? [] };
}

function collectFile(file: SecdbFile, path: string, merged: Merged, skip: Skip): void {
  file.packages.forEach((item, i) => {
    const field = `packages[${i}].pkg`;
    const pkg = isJsonObject(item) ? item.pkg : undefined;
    const name = isJsonObject(pkg) && typeof pkg.name === 'string' ? pkg.name.trim() : '';
    if (!isJsonObject(pkg) || name === '') return skip(path, 'expected a pkg with a name', field);
    if (pkg.secfixes === undefined || pkg.secfixes === null) return;
    if (!isJsonObject(pkg.secfixes)) return skip(path, 'secfixes: expected a mapping of fixed version to ids', `${field}.secfixes`);
    for (const [version, lines] of Object.entries(pkg.secfixes)) {
      collectFix(version.trim(), lines, { ecosystem: file.ecosystem, name, path, field: `${field}.secfixes[${JSON.stringify(version)}]` }, merged, skip);
    }
  });
}

interface FixContext {
  ecosystem: string;
  name: string;
  path: string;
  field: string;
}

/** The ids of one fixed version's lines; `0` lines are read (and their junk counted) but add no affected entry. */
function collectFix(version: string, lines: unknown, ctx: FixContext, merged: Merged, skip: Skip): void {
  // A single line may be written as a scalar instead of a one-item list; `1.0-r0:` with nothing under it is empty.
  const items = lines === null ? [] : Array.isArray(lines) ? lines : [lines];
  items.forEach((line, j) => {
    const field = `${ctx.field}[${j}]`;
    const ids = typeof line === 'string' ? extractIds(line) : [];
    if (ids.length === 0) return skip(ctx.path, `no vulnerability id in ${describeLine(line)}`, field);
    if (version === NEVER_AFFECTED) return;
    if (version === '') return skip(ctx.path, 'empty fixed version', ctx.field);
    for (const id of ids) addAffected(merged, id, ctx, version);
  });
}

function addAffected(merged: Merged, id: string, ctx: FixContext, fixed: string): void {
  let entries = merged.get(id);
  if (entries === undefined) merged.set(id, (entries = new Map()));
  const key = `${ctx.ecosystem}\u0000${ctx.name}`;
  const facts = entries.get(key);
  if (facts === undefined) entries.set(key, { ecosystem: ctx.ecosystem, name: ctx.name, fixes: new Set([fixed]) });
  else facts.fixes.add(fixed);
}

/**
 * The affected ranges of one id in one (release, package), from every version secdb lists it as fixed in.
 *
 * A secdb fix `1.30.1-r2` means "builds of busybox 1.30.1 before -r2 are vulnerable": a package keeps its whole
 * secfixes history, so one release can list an id under fixes on several upstream versions (busybox in v3.11 has
 * CVE-2019-5747 under 1.29.3-r10, the patch on the old line, and under 1.30.1-r2, the patch on the newer line).
 * The fix that counts for a build is the fix of its own version line; collapsing to the lowest fix would call
 * 1.30.1-r1 fixed, and a single range up to the highest fix would call 1.29.3-r10 vulnerable. So:
 *
 * - A version line is a fix without its `-rN` build revision (`1.29.3`): its builds `1.29.3`, `1.29.3-r0`,
 *   `1.29.3-r1`, ... sit next to each other in apk order, with nothing else between them (a pre-release
 *   `1.29.3_rc1` sorts below them; a hash `1.29.3~0`, post-release suffix, letter or further number above them).
 * - Each line the id was fixed on gets its own range ending at its fix. The lowest line's range starts at `0`;
 *   every other starts right after the line below it, at the least apk version above all of that line's builds:
 *   `1.29.3~0` (a line already ending in a commit hash continues the hash: `1.0~ab` -> `1.0~ab0`). So
 *   [0, 1.29.3-r10) and [1.29.3~0, 1.30.1-r2): 1.29.3-r9 and 1.30.1-r1 are affected, each with the fix of its own
 *   line; 1.29.3-r10 and later builds of that line, and 1.30.1-r2, are not. Builds between two lines (1.30.0-r0)
 *   carry neither line's patch and secdb says nothing else about them: they are affected, fixed on the next line.
 * - Several fixes on one line (ghostscript 9.26-r1 and 9.26-r2 for CVE-2019-6116): secdb says the first one is
 *   fixed, so the first ends the line's range; a later listing adds no vulnerable build and no range of its own.
 *   No fix is lost for that: `database_specific.secfixes` lists every fixed version secdb gave, whenever there
 *   is more than one.
 * - A fix apk cannot read (`4.8.0.-r1`) has no line to read from it: the range of the line above starts at that
 *   fix itself, the closest bound the data gives.
 */
export function secfixRanges(fixes: Iterable<string>): SecfixRange[] {
  const sorted = [...new Set(fixes)].sort((a, b) => apkComparator.compare(a, b));
  const ranges: SecfixRange[] = [];
  let previous: { line: string; fix: string } | undefined;
  for (const fix of sorted) {
    const line = versionLine(fix);
    if (previous !== undefined && (line === previous.line || apkComparator.compare(fix, previous.fix) === 0)) continue;
    const introduced = previous === undefined ? '0' : lineEnd(previous.line, previous.fix);
    // A range must not be empty: OSV evaluation would read [x, x) as "affected from x on". The only fix that can be
    // at the end of the line below is that end itself (`1.29.3~0`), and no build lies between them.
    if (previous === undefined || apkComparator.compare(introduced, fix) < 0) ranges.push({ type: 'ECOSYSTEM', events: [{ introduced }, { fixed: fix }] });
    previous = { line, fix };
  }
  return ranges;
}

/** The upstream version line of a fixed version: the version without its `-rN` build revision. */
function versionLine(fix: string): string {
  return fix.replace(/-r\d+$/, '');
}

/** The least apk version above every build of `line`, or `fix` itself when there is none to write. */
function lineEnd(line: string, fix: string): string {
  const end = line.includes('~') ? `${line}0` : `${line}~0`;
  return isValidApkVersion(fix) && isValidApkVersion(end) ? end : fix;
}

function describeLine(line: unknown): string {
  if (typeof line !== 'string') return line === null ? 'an empty item' : 'a nested item';
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 57)}...` : line);
}

/**
 * Id-like tokens of a secfixes line. Lines hold one or more ids separated by blanks, sometimes with a remark
 * (`CVE-2018-16228 (HNCP)`, `CVE-2017-8904 XSA-214`, `CVE-2017-17434-1` for a fix in two parts). A CVE id is taken
 * from the start of a token (dropping `-1` or `.patch` tails); other ids must be a whole upper-case token such as
 * XSA-214, ZBX-1234, TALOS-2017-0499 or GHSA-xxxx-xxxx-xxxx.
 */
export function extractIds(line: string): string[] {
  const ids: string[] = [];
  for (const raw of line.split(/\s+/)) {
    const token = raw.replace(/^[(["']+/, '').replace(/[)\]"',;:.]+$/, '');
    const id = tokenId(token);
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

const CVE_AT_START = /^CVE-\d{4}-\d{4,}/i;
const GHSA_ID = /^GHSA(-[0-9a-z]{4}){3}$/i;
const OTHER_ID = /^[A-Z][A-Z0-9]+(-[A-Z0-9]+)*-\d+$/;

function tokenId(token: string): string | undefined {
  const cve = CVE_AT_START.exec(token);
  if (cve) return cve[0].toUpperCase();
  if (GHSA_ID.test(token)) return `GHSA${token.slice(4).toLowerCase()}`;
  // A malformed CVE (`CVE-????-?????`) must not pass as some other kind of id.
  if (OTHER_ID.test(token) && !/^CVE-/i.test(token)) return token;
  return undefined;
}

/** Builds the OSV JSON and parses it like any fetched record, so stored records have exactly one shape. */
function toRecord(id: string, facts: SecfixFacts[], skip: Skip): OsvRecord | undefined {
  // An id only ever listed under `0` (never affected) has nothing to match: no record, and nothing wrong either.
  if (facts.length === 0) return undefined;
  const recordId = `ALPINE-${id}`;
  const json = {
    id: recordId,
    modified: ALPINE_SECDB_MODIFIED,
    aliases: /^CVE-/.test(id) ? [id] : [],
    affected: facts.map(affectedJson),
  };
  try {
    return parseOsvRecord(json);
  } catch (err) {
    if (!(err instanceof OsvRecordError)) throw err;
    skip(recordId, err.message, err.field);
    return undefined;
  }
}

function affectedJson(facts: SecfixFacts): JsonObject {
  const fixes = [...facts.fixes].sort((a, b) => apkComparator.compare(a, b));
  return {
    package: { ecosystem: facts.ecosystem, name: facts.name },
    ranges: secfixRanges(fixes),
    // A single fix is its range; with more, what secdb listed is kept as given (secfixRanges keeps one per line).
    ...(fixes.length > 1 ? { database_specific: { secfixes: fixes } } : {}),
  };
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
