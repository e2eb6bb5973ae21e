/**
 * Package corrections (upstream's false-positive management): a correction names the packages it applies to — a
 * package type and field matches — and the fields to replace in them before matching. Corrections are shared by
 * every account. This module is the pure part: the shape, what a well-formed correction is, and whether one
 * applies to a package; the step that applies them at match time is ./apply.ts.
 */
import { ecosystemOf } from '../../ecosystems/registry.js';
import { isOsPackageType } from '../../ecosystems/model.js';
import { InvalidError } from '../../errors.js';
import { parsePurl } from '../../images/sbom/read-package.js';

export interface CorrectionFieldMatch {
  field_name: string;
  field_value: string;
}

export interface CorrectionMatch {
  /** A Vigil package type (`npm`, `dpkg`, ...) or upstream's `os` for any distribution package. */
  type: string;
  field_matches?: CorrectionFieldMatch[];
}

/** Upstream knows one kind of correction. */
export type CorrectionType = 'package';

/** What a caller writes (upstream's Correction without its read-only fields). */
export interface CorrectionInput {
  type: CorrectionType;
  description?: string;
  match: CorrectionMatch;
  replace: CorrectionFieldMatch[];
}

export interface Correction extends CorrectionInput {
  uuid: string;
  created_at: string;
  last_updated: string;
}

/** The package fields a correction can test: upstream's package content names (`package`) and the plain `name`. */
export const MATCH_FIELDS = ['package', 'name', 'version', 'purl', 'origin', 'location'] as const;
/** The fields a correction can replace. `cpes` is kept but changes no match: Vigil does not match by CPE. */
export const REPLACE_FIELDS = ['package', 'name', 'version', 'purl', 'cpes'] as const;
/** A field match whose value is this applies to any value of the field. */
export const ANY_VALUE = '*';
/** Corrections are read whole at every match; a deployment keeps at most this many. */
export const MAX_CORRECTIONS = 1000;

/** The fields of a package a correction is tested against. */
export interface CorrectablePackage {
  type: string;
  name: string;
  version: string;
  origin?: string | null;
  purl?: string | null;
  path?: string | null;
}

function fieldValue(pkg: CorrectablePackage, field: string): string | null | undefined {
  switch (field) {
    case 'package':
    case 'name':
      return pkg.name;
    case 'version':
      return pkg.version;
    case 'purl':
      return pkg.purl;
    case 'origin':
      return pkg.origin;
    case 'location':
      return pkg.path;
    default:
      return undefined;
  }
}

function typeApplies(matchType: string, packageType: string): boolean {
  return matchType === 'os' ? isOsPackageType(packageType) : matchType === packageType;
}

/** Whether the correction's match holds for the package: its type, and every field match (`*`: any value). */
export function correctionApplies(match: CorrectionMatch, pkg: CorrectablePackage): boolean {
  if (!typeApplies(match.type, pkg.type)) return false;
  return (match.field_matches ?? []).every((m) => {
    const value = fieldValue(pkg, m.field_name);
    return m.field_value === ANY_VALUE ? value != null && value !== '' : value === m.field_value;
  });
}

/** The names (`name`/`package` field matches) a match is limited to, or undefined when it names none. */
export function matchedNames(match: CorrectionMatch): string[] | undefined {
  const names = (match.field_matches ?? []).filter((m) => (m.field_name === 'name' || m.field_name === 'package') && m.field_value !== ANY_VALUE);
  return names.length ? [...new Set(names.map((m) => m.field_value))] : undefined;
}

type Problem = { location: string; message: string };

/**
 * Checks what the schema cannot: a known package type, known field names, and a replacement that is usable.
 * Throws InvalidError listing every problem (`detail.errors`, as schema violations).
 */
export function checkCorrection(input: CorrectionInput): void {
  const problems: Problem[] = [];
  const type = input.match.type;
  if (type !== 'os' && !ecosystemOf(type)) problems.push({ location: 'body.match.type', message: `'${type}' is not a package type (os or one of Vigil's package types)` });
  (input.match.field_matches ?? []).forEach((m, i) => {
    if (!(MATCH_FIELDS as readonly string[]).includes(m.field_name))
      problems.push({ location: `body.match.field_matches.${i}.field_name`, message: `'${m.field_name}' cannot be matched; use one of ${MATCH_FIELDS.join(', ')}` });
  });
  input.replace.forEach((r, i) => {
    const where = `body.replace.${i}`;
    if (!(REPLACE_FIELDS as readonly string[]).includes(r.field_name))
      problems.push({ location: `${where}.field_name`, message: `'${r.field_name}' cannot be replaced; use one of ${REPLACE_FIELDS.join(', ')}` });
    else if (r.field_name !== 'cpes' && r.field_value.trim() === '') problems.push({ location: `${where}.field_value`, message: 'must not be empty' });
    else if (r.field_name === 'purl' && !parsePurl(r.field_value)) problems.push({ location: `${where}.field_value`, message: 'is not a package URL (pkg:type/name@version)' });
  });
  if (problems.length) throw new InvalidError('the correction is not valid', { errors: problems });
}
