/**
 * Parameter validators for policy rules. Every parameter value is a string in the policy format ("true", "7",
 * "a,b"); a validator says which strings are acceptable and describes itself the way the policy spec reports it
 * (`{type, description, criteria}`), so the spec endpoint and the upload check are one definition.
 */
import { pythonMatcher } from '../util/python-regex.js';

export interface ParamValidator {
  /** EnumString, BooleanString, IntegerString, FloatString, CommaDelimitedStringList, CommaDelimitedNumberList, string. */
  type: string;
  description: string;
  /** A JSON Schema fragment the value satisfies (what the policy spec shows). */
  criteria: Record<string, unknown>;
  /** A problem with the value, or undefined when it is acceptable. */
  check(value: string): string | undefined;
}

const INT = /^\s*\d+\s*$/;
const FLOAT = /^\s*-?(\d+(\.\d*)?|\.\d+)\s*$/;
const CSV = /^\s*(\s*([^,]+)\s*,)*\s*([^,]+){1}\s*$/;
const CSV_NUMBERS = /^\s*(\s*(\d+)\s*,)*\s*(\d+){1}\s*$/;

export function enumString(values: readonly string[]): ParamValidator {
  return {
    type: 'EnumString',
    description: `one of ${values.join(', ')}`,
    criteria: { type: 'string', enum: [...values] },
    check: (v) => (values.includes(v) ? undefined : `must be one of ${values.join(', ')}; got "${v}"`),
  };
}

/** "true" or "false", case-insensitive, as the policy format writes booleans. */
export const booleanString: ParamValidator = {
  type: 'BooleanString',
  description: 'true or false (case-insensitive)',
  criteria: { type: 'string', enum: ['true', 'false'] },
  check: (v) => (/^(true|false)$/i.test(v.trim()) ? undefined : `must be true or false; got "${v}"`),
};

export const integerString: ParamValidator = {
  type: 'IntegerString',
  description: 'a whole number of zero or more',
  criteria: { type: 'string', pattern: INT.source },
  check: (v) => (INT.test(v) ? undefined : `must be a whole number; got "${v}"`),
};

export const floatString: ParamValidator = {
  type: 'FloatString',
  description: 'a decimal number',
  criteria: { type: 'string', pattern: FLOAT.source },
  check: (v) => (FLOAT.test(v) ? undefined : `must be a number; got "${v}"`),
};

export const commaDelimitedStrings: ParamValidator = {
  type: 'CommaDelimitedStringList',
  description: 'a comma-separated list of strings',
  criteria: { type: 'string', pattern: CSV.source },
  check: (v) => (CSV.test(v) ? undefined : `must be a comma-separated list; got "${v}"`),
};

export const commaDelimitedNumbers: ParamValidator = {
  type: 'CommaDelimitedNumberList',
  description: 'a comma-separated list of whole numbers',
  criteria: { type: 'string', pattern: CSV_NUMBERS.source },
  check: (v) => (CSV_NUMBERS.test(v) ? undefined : `must be a comma-separated list of whole numbers; got "${v}"`),
};

export const anyString: ParamValidator = {
  type: 'string',
  description: 'a string',
  criteria: { type: 'string' },
  check: () => undefined,
};

/** A string that must compile as a regular expression (the gates apply it). */
export const regexString: ParamValidator = {
  type: 'string',
  description: 'a regular expression',
  criteria: { type: 'string', format: 'regex' },
  check(v) {
    try {
      pythonMatcher(v); // written in Python's syntax, as the gates apply it
      return undefined;
    } catch (err) {
      return `is not a valid regular expression: ${(err as Error).message}`;
    }
  },
};

/** Splits a comma-delimited parameter value into trimmed, non-empty items. */
export function listOf(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function isTrue(value: string | undefined): boolean {
  return value !== undefined && value.trim().toLowerCase() === 'true';
}
