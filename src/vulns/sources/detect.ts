/**
 * Tells which reader a feed source needs, and gives a feed a default name, from its location. Feeds are configured
 * by path or URL alone, so the kind comes from the extension where that is unambiguous and from the first bytes
 * where it is not (`.json` is OSV, KEV or NVD; `.gz` is EPSS or NVD; downloads may lose their `.gz`).
 */
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import { isGzip } from './feed-stream.js';

export type FeedKind = 'osv' | 'kev' | 'epss' | 'nvd' | 'alpine-secdb';

/** How much of a file is read to sniff its kind; the KEV catalog names its version in the first few hundred bytes. */
const SNIFF_BYTES = 64 * 1024;
/** Of gzip data, this much is inflated to sniff what it holds: enough for NVD's head, bounded whatever the ratio. */
const SNIFF_GZIP_BYTES = 4 * 1024;
const MAX_SNIFF_INFLATED = 8 * 1024 * 1024;
const MAX_FEED_NAME = 64;
const DEFAULT_FEED_NAME = 'feed';
/** Extensions dropped from a location's last segment to make a feed name, repeatedly (`.csv.gz`). */
const NAME_EXTENSIONS = /\.(zip|json|csv|gz|ya?ml)$/i;

/**
 * The kind of the feed at `path`: a directory of YAML (and no JSON) is Alpine secdb, other directories and `.zip` are
 * OSV, `.yaml`/`.yml` is Alpine secdb, `.csv`/`.csv.gz` is EPSS, JSON in NVD's 2.0 shape (`"format": "NVD_CVE"`, or a
 * `vulnerabilities` array of `cve` objects) near its start is NVD, plain or gzip; other gzip data is EPSS, JSON naming
 * `catalogVersion`/`cveID` near its start is KEV, anything else is read as OSV. A missing path throws.
 */
export async function detectFeedKind(path: string): Promise<FeedKind> {
  if ((await stat(path)).isDirectory()) return (await directoryHoldsOnlyYaml(path)) ? 'alpine-secdb' : 'osv';
  const lower = path.toLowerCase();
  if (lower.endsWith('.zip')) return 'osv';
  if (/\.ya?ml$/.test(lower)) return 'alpine-secdb';
  if (lower.endsWith('.csv') || lower.endsWith('.csv.gz')) return 'epss';
  return sniffContent(await readHead(path));
}

/** Whether the tree below dir has YAML files and no JSON ones. Symlinked directories are not entered (loops). */
async function directoryHoldsOnlyYaml(dir: string): Promise<boolean> {
  const found = { yaml: false, json: false };
  await scanTree(dir, found);
  return found.yaml && !found.json;
}

async function scanTree(dir: string, found: { yaml: boolean; json: boolean }): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (found.json) return;
    const name = entry.name.toLowerCase();
    if (entry.isDirectory()) await scanTree(join(dir, entry.name), found);
    else if (name.endsWith('.json')) found.json = true;
    else if (/\.ya?ml$/.test(name)) found.yaml = true;
  }
}

async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function sniffContent(head: Uint8Array): FeedKind {
  if (isGzip(head)) return isNvd(inflatedHead(head)) ? 'nvd' : 'epss';
  const text = Buffer.from(head).toString('utf8');
  if (isNvd(text)) return 'nvd';
  if (text.includes('"catalogVersion"') || text.includes('"cveID"')) return 'kev';
  // A CSV saved without its extension (`?download` URLs): EPSS starts with its model comment or its header.
  if (/^\uFEFF?(#model_version:|cve,epss,percentile\r?\n)/.test(text)) return 'epss';
  return 'osv';
}

function isNvd(text: string): boolean {
  return /"format"\s*:\s*"NVD_CVE"/.test(text) || (/"vulnerabilities"\s*:\s*\[/.test(text) && /"cve"\s*:\s*\{\s*"id"\s*:\s*"CVE-/.test(text));
}

/** The start of what gzip data holds ('' when it does not inflate: its reader then reports the damage). */
function inflatedHead(head: Uint8Array): string {
  try {
    const start = gunzipSync(head.subarray(0, SNIFF_GZIP_BYTES), { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: MAX_SNIFF_INFLATED });
    return start.toString('utf8');
  } catch {
    return '';
  }
}

/**
 * A stable default feed name from a path or URL: the directory above an OSV `all.zip` (`.../PyPI/all.zip` → `pypi`),
 * otherwise the last segment without feed extensions; lower-cased, limited to `[a-z0-9._-]` and 64 characters.
 */
export function feedNameFromLocation(location: string): string {
  const segments = locationPath(location).split('/').filter((s) => s !== '' && s !== '.' && s !== '..');
  let last = segments.at(-1) ?? '';
  if (last.toLowerCase() === 'all.zip' && segments.length > 1) last = segments.at(-2)!;
  while (NAME_EXTENSIONS.test(last)) last = last.replace(NAME_EXTENSIONS, '');
  const name = last
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_FEED_NAME)
    .replace(/-+$/, '');
  return name === '' || name === '.' || name === '..' ? DEFAULT_FEED_NAME : name;
}

/** The path part of a URL (decoded, no query) or of a file path (Windows separators too). */
function locationPath(location: string): string {
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? URL.parse(location) : null;
  if (url === null) return location.replace(/\\/g, '/');
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}
