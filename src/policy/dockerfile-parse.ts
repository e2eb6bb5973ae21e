/**
 * A small Dockerfile reader for the dockerfile gate: splits the text into instructions the way the Docker builder
 * does (case-insensitive keywords, `#` comment lines, line continuations with the escape character, heredocs), without
 * interpreting them. It accepts anything: a line it cannot read is still an instruction, keyed by its first word.
 */

export interface DockerfileInstruction {
  /** The instruction keyword, upper case (`RUN`). */
  keyword: string;
  /**
   * Everything after the keyword, trimmed. Continuation lines are joined with one space (each piece trimmed, comment
   * and empty lines inside the continuation dropped); heredoc bodies follow the first line after a newline.
   */
  args: string;
  /** 1-based line number where the instruction starts. */
  line: number;
}

/** Instructions whose arguments may open heredocs (`RUN <<EOF`). */
const HEREDOC_KEYWORDS = new Set(['RUN', 'COPY', 'ADD']);
const HEREDOC_MARKER = /<<(-?)\s*(["']?)([A-Za-z0-9_.-]+)\2/g;

/** Reads the parser directives at the top of the file; only `escape` changes how the file is read. */
function escapeCharacter(lines: string[]): string {
  let escape = '\\';
  for (const line of lines) {
    const m = /^\s*#\s*([A-Za-z]+)\s*=\s*(\S*)\s*$/.exec(line);
    if (!m) break;
    if (m[1].toLowerCase() === 'escape' && (m[2] === '\\' || m[2] === '`')) escape = m[2];
  }
  return escape;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isBlankOrComment(line: string): boolean {
  const t = line.trim();
  return t === '' || t.startsWith('#');
}

/** Splits a Dockerfile into its instructions, in file order. */
export function parseDockerfile(text: string): DockerfileInstruction[] {
  const lines = text.split(/\r\n|\r|\n/);
  const continuation = new RegExp(`${escapeRegExp(escapeCharacter(lines))}[ \\t]*$`);
  const out: DockerfileInstruction[] = [];

  let i = 0;
  while (i < lines.length) {
    if (isBlankOrComment(lines[i])) {
      i += 1;
      continue;
    }
    const start = i;
    const pieces: string[] = [];
    // One logical line: continue while a line ends with the escape character.
    for (;;) {
      const line = lines[i];
      i += 1;
      if (pieces.length > 0 && isBlankOrComment(line)) {
        if (i >= lines.length) break;
        continue;
      }
      if (continuation.test(line)) {
        pieces.push(line.replace(continuation, '').trim());
        if (i >= lines.length) break;
        continue;
      }
      pieces.push(line.trim());
      break;
    }
    const logical = pieces.filter(Boolean).join(' ');
    const m = /^(\S+)\s*([\s\S]*)$/.exec(logical);
    if (!m) continue;
    const keyword = m[1].toUpperCase();
    let args = m[2].trim();
    if (HEREDOC_KEYWORDS.has(keyword)) {
      const body: string[] = [];
      for (const marker of args.matchAll(HEREDOC_MARKER)) {
        const stripTabs = marker[1] === '-';
        const terminator = marker[3];
        while (i < lines.length) {
          const line = lines[i];
          i += 1;
          body.push(line);
          if ((stripTabs ? line.replace(/^\t+/, '') : line) === terminator) break;
        }
      }
      if (body.length > 0) args = [args, ...body].join('\n');
    }
    out.push({ keyword, args, line: start + 1 });
  }
  return out;
}

/**
 * The instructions of the last build stage (from the last FROM on), which alone make up the final image. A
 * Dockerfile without FROM (as one guessed from the image history usually is) is one stage.
 */
export function finalStage(instructions: readonly DockerfileInstruction[]): DockerfileInstruction[] {
  let from = 0;
  instructions.forEach((ins, idx) => {
    if (ins.keyword === 'FROM') from = idx;
  });
  return instructions.slice(from);
}

const ASSIGNMENT = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g;

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\(.)/g, '$1');
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1);
  return value;
}

/** Records the variables an ARG (defaults) or ENV instruction sets; other instructions set none. */
function applyAssignments(ins: DockerfileInstruction, vars: Map<string, string>): void {
  if (ins.keyword === 'ARG') {
    for (const a of ins.args.matchAll(ASSIGNMENT)) vars.set(a[1], unquote(a[2]));
  } else if (ins.keyword === 'ENV') {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(ins.args)) {
      for (const a of ins.args.matchAll(ASSIGNMENT)) vars.set(a[1], unquote(a[2]));
    } else {
      // Legacy form: `ENV NAME value with spaces`.
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$/s.exec(ins.args);
      if (m) vars.set(m[1], m[2].trim());
    }
  }
}

/**
 * Variables an instruction can refer to: the ARG defaults and ENV values set before it in its stage (values passed
 * at build time are unknown here, so an ARG without a default stays unresolved).
 */
export function variablesBefore(stage: readonly DockerfileInstruction[], index: number): Map<string, string> {
  const vars = new Map<string, string>();
  for (const ins of stage.slice(0, index)) applyAssignments(ins, vars);
  return vars;
}

/**
 * Visits a stage's instructions in order, each with the variables set before it (as variablesBefore): one pass,
 * so a Dockerfile of many instructions costs linear time rather than a variablesBefore per instruction.
 */
export function forEachWithVariables(stage: readonly DockerfileInstruction[], visit: (ins: DockerfileInstruction, vars: ReadonlyMap<string, string>) => void): void {
  const vars = new Map<string, string>();
  for (const ins of stage) {
    visit(ins, vars);
    applyAssignments(ins, vars);
  }
}

/** Replaces `$NAME`, `${NAME}`, `${NAME:-default}` and `${NAME:+alternative}`; unknown variables stay as written. */
export function expandVariables(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (whole: string, braced: string | undefined, op: string | undefined, word: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare ?? '';
      const value = vars.get(name);
      if (op === '-') return value ? value : (word ?? '');
      if (op === '+') return value ? (word ?? '') : '';
      return value ?? whole;
    },
  );
}
