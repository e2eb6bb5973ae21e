/**
 * Regular expressions as policies and analyzer settings write them: Python syntax with `re.match` semantics.
 */
import { compileUserRegex } from './user-regex.js';

/**
 * A test with Python `re.match` semantics, which policy regexes are written for: anchored at the start of the text,
 * not at its end. Python's named groups (`(?P<n>...)`, `(?P=n)`) and leading global flags (`(?i)`, `(?s)`, `(?m)`)
 * are translated. Shared by the gates whose parameters are regular expressions.
 */
export function pythonMatcher(pattern: string, what = 'regex'): (text: string) => boolean {
  let source = pattern;
  let flags = '';
  const inline = /^\(\?([aiLmsux]+)\)/.exec(source);
  if (inline) {
    for (const f of inline[1]) {
      if (f === 'i' || f === 'm' || f === 's') flags += flags.includes(f) ? '' : f;
      else if (f !== 'u' && f !== 'a') throw new Error(`${what} ${JSON.stringify(pattern)} uses the unsupported flag (?${f})`);
    }
    source = source.slice(inline[0].length);
  }
  source = source.replace(/\(\?P</g, '(?<').replace(/\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/g, '\\k<$1>');
  let re: RegExp;
  try {
    // Sticky rather than `^`: anchored at the start of the text even under the multi-line flag, as re.match is.
    re = compileUserRegex(`(?:${source})`, flags + 'y');
  } catch (err) {
    throw new Error(`${what} ${JSON.stringify(pattern)} is not a valid regular expression: ${(err as Error).message}`);
  }
  return (text) => {
    re.lastIndex = 0;
    return re.test(text);
  };
}

