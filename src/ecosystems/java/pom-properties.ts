/**
 * Parser for `META-INF/maven/<groupId>/<artifactId>/pom.properties`, which Maven writes into every artifact it
 * packages. It is a java.util.Properties file; Maven only ever writes simple `key=value` lines and a `#` comment
 * with the build date, but hand-edited or other tools' files may use `:` or whitespace separators, `!` comments
 * and backslash continuations, so those are accepted too.
 */

export interface PomProperties {
  groupId?: string;
  artifactId?: string;
  version?: string;
  /** Every key as written (Maven may add e.g. `name` or custom keys). */
  all: Record<string, string>;
}

export function parsePomProperties(text: string): PomProperties {
  const all: Record<string, string> = {};
  const physical = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let i = 0; i < physical.length; i++) {
    let line = physical[i]!.replace(/^[ \t\f]+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    // An odd number of trailing backslashes continues the logical line on the next physical line.
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < physical.length) {
      line = line.slice(0, -1) + physical[++i]!.replace(/^[ \t\f]+/, '');
    }
    const sep = /^((?:\\.|[^\\:= \t\f])*)[ \t\f]*[:=]?[ \t\f]*(.*)$/.exec(line);
    if (!sep) continue;
    const key = unescape(sep[1]!);
    if (key) all[key] = unescape(sep[2]!).trim();
  }
  return { groupId: all['groupId'] || undefined, artifactId: all['artifactId'] || undefined, version: all['version'] || undefined, all };
}

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[c] ?? c;
  });
}
