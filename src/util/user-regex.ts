/**
 * Regular expressions that users write (policy parameters and mappings, content search expressions), compiled
 * with bounds on what one can cost the process that runs every account's requests.
 */
import { setFlagsFromString } from 'node:v8';

// A backtracking match that runs away (a nested quantifier such as `(a+)+$` against a long non-matching path)
// switches to V8's linear-time engine after a bounded number of backtracks instead of stalling the event loop.
// Process-wide, so it covers every expression. Patterns that engine cannot run (backreferences, lookaround)
// keep backtracking.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** Groups nest at most this deep: V8's compile time grows steeply with nesting (0.4 s at 10,000 levels). */
export const MAX_GROUP_NESTING = 50;

/** The deepest group nesting of a pattern: parentheses outside character classes, escapes skipped. */
export function groupNesting(source: string): number {
  let depth = 0;
  let deepest = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') i++;
    else if (inClass) inClass = ch !== ']';
    else if (ch === '[') inClass = true;
    else if (ch === '(') deepest = Math.max(deepest, ++depth);
    else if (ch === ')') depth--;
  }
  return deepest;
}

/** Compiles a user-written pattern; a pattern that nests too deep is refused like a syntax error. */
export function compileUserRegex(source: string, flags = ''): RegExp {
  const nesting = groupNesting(source);
  if (nesting > MAX_GROUP_NESTING) throw new SyntaxError(`groups nest ${nesting} deep; at most ${MAX_GROUP_NESTING} are allowed`);
  return new RegExp(source, flags);
}
