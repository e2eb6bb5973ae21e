/**
 * Parser for `META-INF/MANIFEST.MF` (JAR File Specification, "Manifest Specification").
 *
 * The format is line-oriented `Name: value` headers; writers wrap lines at 72 bytes and continue them on the
 * next line with a single leading space, which must be joined back without the space (a wrapped value can be
 * split mid-word, even mid-character). A blank line ends a section: the first section holds the main attributes,
 * later ones describe individual entries and start with `Name:`.
 */

export type ManifestAttributes = Record<string, string>;

export interface JarManifest {
  /** Main attributes, names as written (look them up with `manifestAttribute`, names are case-insensitive). */
  main: ManifestAttributes;
  /** Per-entry sections keyed by their `Name:` value. */
  sections: Record<string, ManifestAttributes>;
}

/** Parses manifest bytes or text. Never throws; malformed lines are skipped. */
export function parseJarManifest(input: Uint8Array | string): JarManifest {
  // Bytes are joined before decoding: a 72-byte wrap can split a multi-byte UTF-8 character.
  const text = typeof input === 'string' ? input : decodeJoined(input);
  const manifest: JarManifest = { main: {}, sections: {} };
  let current: ManifestAttributes = manifest.main;
  let inMain = true;
  let sectionHasContent = false;
  for (const line of logicalLines(text)) {
    if (line === '') {
      // Section break: attributes that follow belong to a new (per-entry) section.
      if (sectionHasContent) {
        inMain = false;
        current = {};
        sectionHasContent = false;
      }
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (!name) continue;
    if (!inMain && !sectionHasContent && name.toLowerCase() === 'name') manifest.sections[value] = current;
    current[name] = value;
    sectionHasContent = true;
  }
  return manifest;
}

/** Case-insensitive attribute lookup (the spec says header names are case-insensitive). */
export function manifestAttribute(attrs: ManifestAttributes, name: string): string | undefined {
  if (name in attrs) return attrs[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(attrs)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** Joins continuation lines at the byte level, then decodes, so multi-byte characters split by wrapping survive. */
function decodeJoined(bytes: Uint8Array): string {
  const out: number[] = [];
  const n = bytes.length;
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (; i < n; i++) {
    const c = bytes[i]!;
    if (c === 0x0d || c === 0x0a) {
      const nl = c === 0x0d && bytes[i + 1] === 0x0a ? 2 : 1;
      if (bytes[i + nl] === 0x20) {
        i += nl; // skip the line break and the single continuation space
        continue;
      }
      out.push(0x0a);
      i += nl - 1;
      continue;
    }
    out.push(c);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(out));
}

/** Logical lines: continuations (a line break followed by one space) joined, line endings normalised. */
function logicalLines(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\n /g, '')
    .split('\n');
}
