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

/**
 * What a pattern holds that matters for its worst case: backreferences or lookaround (which V8's linear engine
 * cannot run, so the fallback above does not help), and a repeated group whose body itself repeats or
 * alternates (`(a+)+`, `(a|ab)*`: the shapes whose backtracking grows exponentially with the input).
 */
export function backtrackingShape(source: string): { needsBacktracking: boolean; nestedRepetition: boolean } {
  let needsBacktracking = false;
  let nestedRepetition = false;
  // Per open group: does its body repeat or alternate? The outermost entry stands for the whole pattern.
  const groups: boolean[] = [false];
  let inClass = false;
  const repeats = (at: number): boolean => {
    if (source[at] === '*' || source[at] === '+') return true;
    const bounds = source[at] === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at, at + 24)) : null;
    if (!bounds) return false;
    const most = bounds[2] === undefined ? Number(bounds[1]) : bounds[3] === '' ? Infinity : Number(bounds[3]);
    return most > 1;
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || next === 'k')) needsBacktracking = true;
      i++;
    } else if (inClass) inClass = ch !== ']';
    else if (ch === '[') inClass = true;
    else if (ch === '(') {
      if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) needsBacktracking = true;
      groups.push(false);
    } else if (ch === ')') {
      const inner = groups.length > 1 ? groups.pop()! : false;
      const repeated = repeats(i + 1);
      if (repeated && inner) nestedRepetition = true;
      groups[groups.length - 1] ||= inner || repeated;
    } else if (ch === '|' || repeats(i)) groups[groups.length - 1] = true;
  }
  return { needsBacktracking, nestedRepetition };
}

/**
 * Compiles a user-written pattern. Refused like a syntax error: groups nested too deep, and a backreference or
 * lookaround together with a repeated group that repeats or alternates inside (no engine could bound that one).
 */
export function compileUserRegex(source: string, flags = ''): RegExp {
  const nesting = groupNesting(source);
  if (nesting > MAX_GROUP_NESTING) throw new SyntaxError(`groups nest ${nesting} deep; at most ${MAX_GROUP_NESTING} are allowed`);
  const shape = backtrackingShape(source);
  if (shape.needsBacktracking && shape.nestedRepetition)
    throw new SyntaxError(
      'a pattern with backreferences or lookaround may not repeat a group that itself repeats or alternates, such as (a+)+ or (a|b)*: its matching time can grow exponentially; rewrite it without one or the other',
    );
  return new RegExp(source, flags);
}
