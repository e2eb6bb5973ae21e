/**
 * Cargo.lock reading. Cargo writes the file in one regular TOML shape (every lock format version, 1 to 4):
 *
 *   [[package]]
 *   name = "serde"
 *   version = "1.0.193"
 *   source = "registry+https://github.com/rust-lang/crates.io-index"
 *   checksum = "25dd9975e68d0cb5aa1120c288333fc98731bd1dd12f561e468ea4728c042b89"
 *   dependencies = [
 *    "serde_derive",
 *   ]
 *
 * so a line reader of `[[package]]` tables with string keys and string arrays suffices; a general TOML parser
 * would accept much more than Cargo ever writes. Other tables (`[metadata]` of format 1, `[[patch.unused]]`) end
 * the current package and are skipped.
 */

export interface CargoLockEntry {
  name: string;
  version: string;
  /** `registry+<index url>`, `sparse+<index url>` or `git+<url>#<commit>`; absent for the workspace's own crates. */
  source?: string;
  checksum?: string;
  /** As written: `name`, `name version` or `name version (source)`. */
  dependencies: string[];
}

/** More entries than any real workspace has (large ones lock about 1,500); the rest of the file is ignored. */
export const MAX_CARGO_LOCK_PACKAGES = 20_000;
/** Entries of one `dependencies` array kept; longer arrays are cut. */
const MAX_DEPENDENCIES = 2_000;

const KEY_VALUE = /^([A-Za-z0-9_-]+)\s*=\s*(.*)$/;

/** A TOML basic string (`"..."`, JSON-compatible escapes as Cargo writes them), or undefined for anything else. */
function basicString(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^"(?:[^"\\]|\\.)*"$/.test(trimmed)) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The strings of an array's items, from `"a", "b",` text (commas and surrounding space ignored). */
function arrayItems(text: string): string[] {
  const items: string[] = [];
  for (const m of text.matchAll(/"(?:[^"\\]|\\.)*"/g)) {
    const value = basicString(m[0]);
    if (value !== undefined) items.push(value);
  }
  return items;
}

interface Draft {
  fields: Map<string, string>;
  dependencies: string[];
}

function finish(draft: Draft | undefined, out: CargoLockEntry[]): void {
  if (!draft) return;
  const name = draft.fields.get('name');
  const version = draft.fields.get('version');
  if (!name || !version) return;
  const source = draft.fields.get('source');
  const checksum = draft.fields.get('checksum');
  out.push({ name, version, ...(source ? { source } : {}), ...(checksum ? { checksum } : {}), dependencies: draft.dependencies });
}

/** Every `[[package]]` entry with a name and version, in file order; [] for anything that is not a Cargo.lock. */
export function parseCargoLock(content: Buffer): CargoLockEntry[] {
  if (content.includes(0)) return [];
  const entries: CargoLockEntry[] = [];
  let draft: Draft | undefined;
  /** The key of a multi-line array being read, and the text read so far. */
  let openArray: { key: string; text: string } | undefined;
  for (const rawLine of content.toString('utf8').split('\n')) {
    if (entries.length >= MAX_CARGO_LOCK_PACKAGES) break;
    const line = rawLine.trim();
    if (openArray) {
      openArray.text += ` ${line}`;
      if (line.startsWith(']')) {
        if (draft && openArray.key === 'dependencies') draft.dependencies = arrayItems(openArray.text).slice(0, MAX_DEPENDENCIES);
        openArray = undefined;
      }
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      finish(draft, entries);
      draft = line === '[[package]]' ? { fields: new Map(), dependencies: [] } : undefined;
      continue;
    }
    const kv = KEY_VALUE.exec(line);
    if (!kv || !draft) continue;
    const [, key, value] = kv;
    if (value.startsWith('[')) {
      if (value.trimEnd().endsWith(']')) {
        if (key === 'dependencies') draft.dependencies = arrayItems(value).slice(0, MAX_DEPENDENCIES);
      } else openArray = { key, text: value };
      continue;
    }
    const text = basicString(value);
    if (text !== undefined) draft.fields.set(key, text);
  }
  if (entries.length < MAX_CARGO_LOCK_PACKAGES) finish(draft, entries);
  return entries;
}
