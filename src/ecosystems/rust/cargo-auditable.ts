/**
 * The dependency list `cargo auditable` embeds in Rust executables: an ELF section named `.dep-v0` holding
 * zlib-compressed JSON (the auditable-serde `VersionInfo` shape):
 *
 *   {"packages":[{"name":"ripgrep","version":"14.1.0","source":"crates.io","dependencies":[1],"root":true},
 *                {"name":"regex","version":"1.10.2","source":"crates.io"},
 *                {"name":"cc","version":"1.0.83","source":"crates.io","kind":"build"}]}
 *
 * `source` is `crates.io`, `registry`, `git` or `local`; `kind` is `runtime` when omitted; `dependencies` are
 * indexes into the array. Every read is bounded: the section, what it inflates to, and the number of packages.
 */
import { inflateSync } from 'node:zlib';
import { parseElf, sectionData } from '../../formats/elf.js';
import { isJsonObject, parseJsonObject, stringField } from '../../formats/json-object.js';

export interface AuditedCrate {
  name: string;
  version: string;
  source: string;
  kind: 'runtime' | 'build';
  root: boolean;
}

export const AUDIT_SECTION = '.dep-v0';
/** cargo-auditable keeps the section small (a few KiB for hundreds of crates); larger ones are not its output. */
const MAX_COMPRESSED_BYTES = 4 * 1024 * 1024;
const MAX_JSON_BYTES = 16 * 1024 * 1024;
const MAX_PACKAGES = 20_000;

/** The crates a binary's audit data lists, or undefined when the file carries none (not ELF, no section, corrupt). */
export function readAuditedCrates(content: Buffer): AuditedCrate[] | undefined {
  const elf = parseElf(content);
  const section = elf?.sections.find((s) => s.name === AUDIT_SECTION);
  const compressed = section && section.size <= MAX_COMPRESSED_BYTES ? sectionData(content, section) : undefined;
  if (!compressed) return undefined;
  let json: Buffer;
  try {
    json = inflateSync(compressed, { maxOutputLength: MAX_JSON_BYTES });
  } catch {
    return undefined; // not zlib, truncated, or inflating past the limit
  }
  const info = parseJsonObject(json);
  if (!info || !Array.isArray(info.packages)) return undefined;
  const crates: AuditedCrate[] = [];
  for (const raw of info.packages.slice(0, MAX_PACKAGES)) {
    if (!isJsonObject(raw)) continue;
    const name = stringField(raw, 'name');
    const version = stringField(raw, 'version');
    if (!name || !version) continue;
    crates.push({
      name,
      version,
      source: stringField(raw, 'source') ?? 'crates.io',
      kind: raw.kind === 'build' ? 'build' : 'runtime',
      root: raw.root === true,
    });
  }
  return crates;
}
