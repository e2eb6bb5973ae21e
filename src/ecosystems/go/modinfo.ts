/**
 * Parser for the module information the Go linker embeds in binaries (the text `runtime/debug.ReadBuildInfo`
 * returns, format of `debug.ParseBuildInfo`): tab-separated lines
 *
 *   path  example.com/cmd/app                 main package
 *   mod   example.com/app  (devel)  [h1:...]   main module
 *   dep   github.com/x/y   v1.2.3   h1:...     dependency
 *   =>    ../y | example.com/fork  [v1.2.4  h1:...]   replacement of the module on the previous line
 *   build GOARCH=amd64 | -ldflags="-s -w"      build setting (key and value quoted when they contain specials)
 */

export interface GoModule {
  path: string;
  /** `(devel)` for a main module built from a working tree; empty for a local-directory replacement. */
  version: string;
  /** `h1:` go.sum hash; absent for the main module and local replacements. */
  sum?: string;
  replace?: GoModule;
}

export interface GoModInfo {
  /** Import path of the main package (`path` line). */
  path?: string;
  main?: GoModule;
  deps: GoModule[];
  /** Build settings in recorded order (Go >= 1.18). */
  settings: { key: string; value: string }[];
}

export function parseGoModInfo(text: string): GoModInfo {
  const info: GoModInfo = { deps: [], settings: [] };
  let last: GoModule | undefined;
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const kind = line.slice(0, tab);
    const rest = line.slice(tab + 1);
    switch (kind) {
      case 'path':
        info.path = rest;
        last = undefined;
        break;
      case 'mod':
      case 'dep': {
        const m = moduleFields(rest.split('\t'));
        if (!m) break;
        if (kind === 'mod') info.main = m;
        else info.deps.push(m);
        last = m;
        break;
      }
      case '=>': {
        const r = moduleFields(rest.split('\t'));
        if (r && last) last.replace = r;
        last = undefined;
        break;
      }
      case 'build': {
        const s = buildSetting(rest);
        if (s) info.settings.push(s);
        break;
      }
      default:
        break;
    }
  }
  return info;
}

function moduleFields(fields: string[]): GoModule | undefined {
  const [path, version = '', sum = ''] = fields;
  if (!path) return undefined;
  return { path, version, ...(sum ? { sum } : {}) };
}

/** `key=value` where key and value are Go-quoted when they hold spaces, tabs, quotes, `=` or newlines. */
function buildSetting(rest: string): { key: string; value: string } | undefined {
  let key: string;
  let after: string;
  if (rest.startsWith('"')) {
    const end = quotedEnd(rest);
    if (end < 0) return undefined;
    key = unquoteGo(rest.slice(0, end + 1));
    after = rest.slice(end + 1);
  } else {
    const eq = rest.indexOf('=');
    if (eq < 0) return undefined;
    key = rest.slice(0, eq);
    after = rest.slice(eq);
  }
  if (!after.startsWith('=')) return undefined;
  const raw = after.slice(1);
  return { key, value: raw.startsWith('"') ? unquoteGo(raw) : raw };
}

/** Index of the closing quote of a Go string literal starting at 0, or -1. */
function quotedEnd(s: string): number {
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
  }
  return -1;
}

/** strconv.Unquote for the escapes strconv.Quote produces; the raw text when it is not a valid literal. */
function unquoteGo(s: string): string {
  if (s.length < 2 || !s.startsWith('"') || !s.endsWith('"')) return s;
  const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"', "'": "'" };
  return s.slice(1, -1).replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g, (m, e: string) => {
    if (e in simple) return simple[e]!;
    if (/^[xuU]/.test(e)) {
      const cp = parseInt(e.slice(1), 16);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    if (/^[0-7]{3}$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return m;
  });
}
