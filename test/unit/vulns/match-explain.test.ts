/**
 * The suppression reasons are an open list: another module registers its reason, and a rule over single candidates,
 * and matching applies it after the version check. Plus the shapes of `ecosystem_specific.binaries` that are read.
 */
import { describe, expect, it } from 'vitest';
import { affectedBinaries, registerCandidateRule, registerSuppressionReason, suppressionOf, suppressionReasons } from '../../../src/vulns/match-explain.js';
import type { OsvAffected } from '../../../src/vulns/osv/types.js';

const entry = (ecosystemSpecific?: Record<string, unknown>): OsvAffected => ({ severity: [], ranges: [], versions: [], ...(ecosystemSpecific ? { ecosystemSpecific } : {}) });
const pkg = { type: 'dpkg', name: 'libssl3', version: '3.0.2-0ubuntu1.9', origin: 'openssl' };

describe('binaries named by an advisory entry', () => {
  it("reads Ubuntu's {binary_name, binary_version} objects and plain names; anything else counts as no list", () => {
    expect([...affectedBinaries(entry({ binaries: [{ binary_name: 'libssl3', binary_version: '3.0.2-0ubuntu1.10' }, 'openssl'] }))!]).toEqual(['libssl3', 'openssl']);
    expect(affectedBinaries(entry({ binaries: [{ name: 'libssl3' }, 7, null] }))).toBeUndefined();
    expect(affectedBinaries(entry({ binaries: 'libssl3' }))).toBeUndefined();
    expect(affectedBinaries(entry({ urgency: 'low' }))).toBeUndefined();
    expect(affectedBinaries(entry())).toBeUndefined();
  });

  it('drops a binary of the source the list leaves out, and keeps one it names', () => {
    const usn = entry({ binaries: [{ binary_name: 'openssl' }] });
    expect(suppressionOf({ pkg, affected: usn, matchedName: 'openssl' })).toEqual({ reason: 'binary-not-affected', detail: 'lists 1 binary (openssl), not libssl3' });
    expect(suppressionOf({ pkg: { ...pkg, name: 'openssl' }, affected: usn, matchedName: 'openssl' })).toBeUndefined();
  });
});

describe('registering reasons', () => {
  it('lets another module add a rule, which then suppresses candidates and is listed', () => {
    registerCandidateRule({
      reason: 'test-only-rule',
      description: 'Suppresses packages named in the test.',
      check: ({ pkg: p }) => (p.name === 'zlib1g' ? 'named by the test' : undefined),
    });
    expect(suppressionReasons().map((r) => r.reason)).toEqual(['binary-not-affected', 'owned-by-os-package', 'test-only-rule']);
    expect(suppressionOf({ pkg: { ...pkg, name: 'zlib1g' }, affected: entry(), matchedName: 'zlib' })).toEqual({ reason: 'test-only-rule', detail: 'named by the test' });
    expect(suppressionOf({ pkg, affected: entry(), matchedName: 'openssl' })).toBeUndefined();
  });

  it('refuses a reason twice, or one that is not lower-case words joined by -', () => {
    expect(() => registerSuppressionReason({ reason: 'binary-not-affected', description: 'again' })).toThrow(/registered twice/);
    expect(() => registerSuppressionReason({ reason: 'Not Reachable', description: 'x' })).toThrow(/lower-case/);
  });
});
