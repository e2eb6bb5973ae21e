/**
 * The tokenizer behind Alpine's version comparison, ported from apk-tools 3.x's src/version.c (token_first,
 * token_next, suffix_value). Grammar:
 *
 *   digits {.digits} [letter] {_suffix[digits]} [~hexhash] [-rdigits]
 *
 * Each token remembers its kind and text; the comparator (apk.ts) orders token by token. A character that
 * does not fit the grammar where it stands turns the token into `Invalid` and reading stops there, as in apk.
 */
import { isAsciiDigit } from '../shared/ascii-text.js';

/** Token kinds in apk's enum order; the comparator relies on that order when one version runs out first. */
export const TokenKind = {
  InitialDigit: 0,
  Digit: 1,
  Letter: 2,
  Suffix: 3,
  SuffixNumber: 4,
  CommitHash: 5,
  RevisionNumber: 6,
  End: 7,
  Invalid: 8,
} as const;
export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

/**
 * Suffix ranks in apk's enum order: the four before `None` mark pre-releases (sorting before the plain
 * release), the five after it post-releases. `Invalid` is an unknown suffix.
 */
export const SuffixRank = {
  Invalid: 0,
  Alpha: 1,
  Beta: 2,
  Pre: 3,
  Rc: 4,
  None: 5,
  Cvs: 6,
  Svn: 7,
  Git: 8,
  Hg: 9,
  P: 10,
} as const;
export type SuffixRank = (typeof SuffixRank)[keyof typeof SuffixRank];

const SUFFIX_RANKS: ReadonlyMap<string, SuffixRank> = new Map<string, SuffixRank>([
  ['alpha', SuffixRank.Alpha],
  ['beta', SuffixRank.Beta],
  ['pre', SuffixRank.Pre],
  ['rc', SuffixRank.Rc],
  ['cvs', SuffixRank.Cvs],
  ['svn', SuffixRank.Svn],
  ['git', SuffixRank.Git],
  ['hg', SuffixRank.Hg],
  ['p', SuffixRank.P],
]);

/** Reads one version string a token at a time; `kind`, `text` and `suffix` describe the current token. */
export class ApkTokenReader {
  kind: TokenKind = TokenKind.InitialDigit;
  /** The token's characters: the digits of a number, the letter, the suffix name or the hash. */
  text = '';
  /** The suffix rank when kind is Suffix. */
  suffix: SuffixRank = SuffixRank.Invalid;
  private position = 0;

  constructor(private readonly version: string) {
    this.readDigits();
  }

  /** Moves to the next token, or to End / Invalid; call only while kind is below End. */
  advance(): void {
    const s = this.version;
    if (this.position >= s.length) {
      this.kind = TokenKind.End;
      return;
    }
    const c = s[this.position]!;
    if (c >= 'a' && c <= 'z') {
      // A single letter may follow the numbers only.
      if (this.kind > TokenKind.Digit) return this.invalid();
      this.text = c;
      this.kind = TokenKind.Letter;
      this.position++;
    } else if (c === '.' || isAsciiDigit(c.charCodeAt(0))) {
      if (c === '.') {
        if (this.kind > TokenKind.Digit) return this.invalid();
        this.position++;
      }
      if (this.kind === TokenKind.InitialDigit || this.kind === TokenKind.Digit) this.kind = TokenKind.Digit;
      else if (this.kind === TokenKind.Suffix) this.kind = TokenKind.SuffixNumber;
      else return this.invalid();
      this.readDigits();
    } else if (c === '_') {
      if (this.kind > TokenKind.SuffixNumber) return this.invalid();
      this.position++;
      this.text = this.readSpan(isSuffixChar);
      this.suffix = SUFFIX_RANKS.get(this.text) ?? SuffixRank.Invalid;
      if (this.suffix === SuffixRank.Invalid) return this.invalid();
      this.kind = TokenKind.Suffix;
    } else if (c === '~') {
      if (this.kind >= TokenKind.CommitHash) return this.invalid();
      this.position++;
      this.text = this.readSpan(isHashChar);
      if (this.text === '') return this.invalid();
      this.kind = TokenKind.CommitHash;
    } else if (c === '-') {
      if (this.kind >= TokenKind.RevisionNumber || s[this.position + 1] !== 'r') return this.invalid();
      this.position += 2;
      this.kind = TokenKind.RevisionNumber;
      this.readDigits();
    } else {
      this.invalid();
    }
  }

  /** A number token needs at least one digit (`1.`, `_rc.`, `-r` alone are invalid). */
  private readDigits(): void {
    const start = this.position;
    while (this.position < this.version.length && isAsciiDigit(this.version.charCodeAt(this.position))) this.position++;
    this.text = this.version.slice(start, this.position);
    if (this.text === '') this.kind = TokenKind.Invalid;
  }

  private readSpan(accept: (code: number) => boolean): string {
    const start = this.position;
    while (this.position < this.version.length && accept(this.version.charCodeAt(this.position))) this.position++;
    return this.version.slice(start, this.position);
  }

  private invalid(): void {
    this.kind = TokenKind.Invalid;
  }
}

/*
 * apk's character-class spans (apk_blob_spn) let every byte >= 0x80 through, so apk would take `1~` followed by
 * any non-ASCII text for a valid hash. This port keeps the spans ASCII: such a string is invalid here.
 */
function isSuffixChar(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

function isHashChar(code: number): boolean {
  return isAsciiDigit(code) || (code >= 0x61 && code <= 0x66);
}
