/**
 * PEP 440 versions (Python packages), ordered as the `packaging` library's Version does, which is the reference
 * pip and the PyPA tools use.
 *
 * Accepted spellings are PEP 440's normalisation rules: any case, `-`/`_`/`.` separators (or none) before
 * pre/post/dev parts, `alpha`/`beta`/`c`/`pre`/`preview` for a/b/rc, `rev`/`r` for post, the implicit post
 * release `1.0-1`, implicit numbers (`1.0a` = `1.0a0`), a leading `v` and surrounding whitespace.
 */
import type { VersionComparator } from '../shared/comparator.js';
import { compareCodeUnits, compareDigitStrings, compareParsedOrInvalidFirst } from '../shared/compare-primitives.js';

/** packaging's VERSION_PATTERN (PEP 440 appendix B), case-insensitive. Labels are captured so `1.0.post` counts. */
const PEP440 = new RegExp(
  '^\\s*v?' +
    '(?:([0-9]+)!)?' + // 1: epoch
    '([0-9]+(?:\\.[0-9]+)*)' + // 2: release
    '(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?' + // 3, 4: pre-release label, number
    '(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?' + // 5: implicit post number | 6, 7: post label, number
    '(?:[-_.]?(dev)[-_.]?([0-9]+)?)?' + // 8, 9: dev label, number
    '(?:\\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?' + // 10: local version
    '\\s*$',
  'i',
);

type PreReleaseLabel = 'a' | 'b' | 'rc';

export interface Pep440Version {
  readonly epoch: string;
  readonly release: readonly string[];
  readonly pre: { readonly label: PreReleaseLabel; readonly number: string } | null;
  readonly post: string | null;
  readonly dev: string | null;
  /** Lower-cased segments of the local version, separators normalised away; null when there is none. */
  readonly local: readonly string[] | null;
}

const PRE_LABELS: Readonly<Record<string, PreReleaseLabel>> = {
  a: 'a',
  alpha: 'a',
  b: 'b',
  beta: 'b',
  c: 'rc',
  rc: 'rc',
  pre: 'rc',
  preview: 'rc',
};

const PRE_LABEL_RANK: Readonly<Record<PreReleaseLabel, number>> = { a: 0, b: 1, rc: 2 };

export function parsePep440(version: string): Pep440Version | null {
  if (typeof version !== 'string') return null;
  const m = PEP440.exec(version);
  if (m === null) return null;
  const [, epoch, release, preLabel, preNumber, implicitPost, postLabel, postNumber, devLabel, devNumber, local] = m;
  return {
    epoch: epoch ?? '0',
    release: release.split('.'),
    pre: preLabel === undefined ? null : { label: PRE_LABELS[preLabel.toLowerCase()], number: preNumber ?? '0' },
    post: implicitPost ?? (postLabel === undefined ? null : (postNumber ?? '0')),
    dev: devLabel === undefined ? null : (devNumber ?? '0'),
    local: local === undefined ? null : local.toLowerCase().split(/[-_.]/),
  };
}

/** `packaging`'s sort key, compared part by part: epoch, release, pre, post, dev, local. */
export function comparePep440Parsed(a: Pep440Version, b: Pep440Version): number {
  return (
    compareDigitStrings(a.epoch, b.epoch) ||
    compareRelease(a.release, b.release) ||
    comparePreRank(a, b) ||
    compareOptionalNumber(a.post, b.post, -1) ||
    compareOptionalNumber(a.dev, b.dev, 1) ||
    compareLocal(a.local, b.local)
  );
}

/** Trailing zeros do not count: 1.0 == 1.0.0. */
function compareRelease(a: readonly string[], b: readonly string[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareDigitStrings(a[i] ?? '0', b[i] ?? '0');
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * A bare dev release (`1.0.dev0`, no pre or post) sorts before every pre-release of its release; a version
 * without a pre-release sorts after all of them.
 */
function comparePreRank(a: Pep440Version, b: Pep440Version): number {
  const ra = preRank(a);
  const rb = preRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (a.pre === null || b.pre === null) return 0;
  return (
    PRE_LABEL_RANK[a.pre.label] - PRE_LABEL_RANK[b.pre.label] || compareDigitStrings(a.pre.number, b.pre.number)
  );
}

function preRank(v: Pep440Version): number {
  if (v.pre !== null) return 1;
  return v.post === null && v.dev !== null ? 0 : 2;
}

/** A missing post part sorts before any post (-1); a missing dev part sorts after any dev (+1). */
function compareOptionalNumber(a: string | null, b: string | null, missing: -1 | 1): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? missing : -missing;
  return compareDigitStrings(a, b);
}

/**
 * A local version sorts after the same public version without one. Segment by segment, numeric segments compare
 * as numbers and outrank alphanumeric ones, which compare lexically; a longer local wins a shared prefix.
 */
function compareLocal(a: readonly string[] | null, b: readonly string[] | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    const c = compareLocalSegment(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function compareLocalSegment(a: string, b: string): number {
  const aNumeric = /^[0-9]+$/.test(a);
  const bNumeric = /^[0-9]+$/.test(b);
  if (aNumeric && bNumeric) return compareDigitStrings(a, b);
  if (aNumeric !== bNumeric) return aNumeric ? 1 : -1;
  return compareCodeUnits(a, b);
}

export function comparePep440(a: string, b: string): number {
  return compareParsedOrInvalidFirst(a, b, parsePep440, comparePep440Parsed);
}

export const pep440Comparator: VersionComparator = {
  name: 'pep440',
  compare: comparePep440,
  isValid: (version: string) => parsePep440(version) !== null,
};
