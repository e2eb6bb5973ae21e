/**
 * The line search behind the secret and content searches: each configured expression is tried at the start of
 * every line of a file (Python `re.match` semantics, as the expressions are written for), and the lines it matches
 * are recorded per expression.
 */
import { pythonMatcher } from '../../util/python-regex.js';

export interface NamedPattern {
  /** The name policies refer to it by (e.g. AWS_ACCESS_KEY). */
  name: string;
  regex: string;
}

export interface RegexContentMatch {
  name: string;
  regex: string;
  /** Numbers of the matching lines, counting from 1. */
  lines: number[];
}

export interface CompiledPattern extends NamedPattern {
  test(line: string): boolean;
}

/** Throws with the pattern's name when its expression is not valid. */
export function compilePattern(pattern: NamedPattern): CompiledPattern {
  return { ...pattern, test: pythonMatcher(pattern.regex, `expression ${pattern.name}`) };
}

/**
 * The matches of every pattern in `content`. Bytes are read as Latin-1 so that binary files are searched too and
 * every byte is one character; lines end at `\n` only, as Python's line reader splits them.
 */
export function searchLines(content: Buffer, patterns: readonly CompiledPattern[]): RegexContentMatch[] {
  if (patterns.length === 0) return [];
  const lines = content.toString('latin1').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // the newline that ends the last line
  const found = patterns.map(() => [] as number[]);
  lines.forEach((line, i) => {
    patterns.forEach((pattern, p) => {
      if (pattern.test(line)) found[p].push(i + 1);
    });
  });
  return patterns.flatMap((pattern, p) => (found[p].length > 0 ? [{ name: pattern.name, regex: pattern.regex, lines: found[p] }] : []));
}
