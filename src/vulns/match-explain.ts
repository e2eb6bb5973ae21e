/**
 * Why a package matched an advisory, and why a candidate the version ranges call affected was dropped.
 *
 * `MatchedBy` is stored with each finding and shown on it. A suppressed candidate is never stored; the debug view
 * (image-debug.ts) counts them by reason. Reasons are an open list: a module registers its reason (with a
 * description for the debug view) and, when it judges single candidates, a `CandidateRule` that matching applies
 * after the version check. Rules never add matches, they only drop them.
 */
import type { MatchablePackage } from '../ecosystems/shared/lookup.js';
import type { OsvAffected } from './osv/types.js';

/**
 * `package`: the advisory's package name is the package's own name (or the advisory lists it among the binary
 * packages it affects). `source-package`: the advisory names only the package's source/origin package and says
 * nothing about which binaries of that source ship the vulnerable code.
 */
export type MatchedBy = 'package' | 'source-package';

export interface SuppressionReason {
  /** Stable identifier, lower-case words joined by `-`. */
  reason: string;
  description: string;
}

/** A candidate that matched by name and version and was dropped by a rule. */
export interface SuppressedCandidate {
  vulnId: string;
  feed: string;
  group: string;
  /** The name the advisory used. */
  matchedName: string;
  reason: string;
  /** What the rule saw, in words (e.g. the binaries the advisory lists). */
  detail: string;
}

/** What a candidate rule sees: the package, the advisory entry, and the name under which it was found. */
export interface Candidate {
  pkg: MatchablePackage;
  affected: OsvAffected;
  matchedName: string;
}

/** A rule over single candidates; `check` returns the detail of a suppression, or undefined to keep the match. */
export interface CandidateRule extends SuppressionReason {
  check(candidate: Candidate): string | undefined;
}

const reasons = new Map<string, SuppressionReason>();
const rules: CandidateRule[] = [];

/** Makes a reason known to the debug view (counted, zero included). Registering a reason twice is a mistake. */
export function registerSuppressionReason(reason: SuppressionReason): void {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(reason.reason)) throw new Error(`suppression reason ${JSON.stringify(reason.reason)} is not lower-case words joined by '-'`);
  if (reasons.has(reason.reason)) throw new Error(`suppression reason ${reason.reason} is registered twice`);
  reasons.set(reason.reason, { reason: reason.reason, description: reason.description });
}

/** Registers a rule that matching applies to every candidate the version ranges call affected. */
export function registerCandidateRule(rule: CandidateRule): void {
  registerSuppressionReason(rule);
  rules.push(rule);
}

export function suppressionReasons(): SuppressionReason[] {
  return [...reasons.values()];
}

/** The first rule that drops the candidate, with its detail. */
export function suppressionOf(candidate: Candidate): { reason: string; detail: string } | undefined {
  for (const rule of rules) {
    const detail = rule.check(candidate);
    if (detail !== undefined) return { reason: rule.reason, detail };
  }
  return undefined;
}

/** How a package matched an advisory entry, found under the package's own name or under its source's. */
export function matchedByOf(pkg: MatchablePackage, affected: OsvAffected, underOwnName: boolean): MatchedBy {
  if (underOwnName) return 'package';
  const binaries = affectedBinaries(affected);
  return binaries?.has(pkg.name) ? 'package' : 'source-package';
}

/** Bounds what is read from one entry's list (the largest real lists, Linux kernel USNs, hold a few hundred). */
const MAX_BINARIES = 10_000;
const binariesCache = new WeakMap<OsvAffected, ReadonlySet<string> | null>();

/**
 * The binary packages an entry filed under a source package says are affected, or undefined when it names none
 * (source-level data). Ubuntu's notices list `ecosystem_specific.binaries` as `{binary_name, binary_version}`
 * objects; plain names are read too. A list with no name Vigil can read counts as absent, so data of an unknown
 * shape never drops a match.
 */
export function affectedBinaries(affected: OsvAffected): ReadonlySet<string> | undefined {
  const cached = binariesCache.get(affected);
  if (cached !== undefined) return cached ?? undefined;
  const list = affected.ecosystemSpecific?.binaries;
  const names = new Set<string>();
  if (Array.isArray(list)) {
    for (const item of list.slice(0, MAX_BINARIES)) {
      const name = typeof item === 'string' ? item : item && typeof item === 'object' ? (item as Record<string, unknown>).binary_name : undefined;
      if (typeof name === 'string' && name) names.add(name);
    }
  }
  const result = names.size ? names : null;
  binariesCache.set(affected, result);
  return result ?? undefined;
}

const BINARY_LIST_SHOWN = 20;

/**
 * Class 3 of issue 16: an advisory filed under a source package that lists the binaries it affects does not affect
 * the source's other binaries (a `-doc` or data package of a vulnerable library, say).
 */
export const binaryNotAffected: CandidateRule = {
  reason: 'binary-not-affected',
  description: "The advisory is filed under the package's source package and lists the binary packages it affects; this one is not among them.",
  check({ pkg, affected }) {
    const binaries = affectedBinaries(affected);
    if (!binaries || binaries.has(pkg.name)) return undefined;
    const shown = [...binaries].slice(0, BINARY_LIST_SHOWN).join(', ');
    return `lists ${binaries.size} binar${binaries.size === 1 ? 'y' : 'ies'} (${shown}${binaries.size > BINARY_LIST_SHOWN ? ', …' : ''}), not ${pkg.name}`;
  },
};

/** Not a candidate rule: an owned language package is never looked up in its feed; the debug view looks it up. */
export const OWNED_BY_OS_PACKAGE: SuppressionReason = {
  reason: 'owned-by-os-package',
  description:
    'A language package the OS package manager installed is matched through its owning OS package against the distribution data; the advisories of its language feed are not applied.',
};

registerCandidateRule(binaryNotAffected);
registerSuppressionReason(OWNED_BY_OS_PACKAGE);
