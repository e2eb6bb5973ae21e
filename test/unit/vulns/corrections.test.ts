/**
 * The correction step of matching, with corrections from a provider held in memory: which packages a correction
 * applies to, what it replaces (a purl read in its ecosystem's conventions), the order several apply in, and the
 * effect on matching against in-memory vulnerability data. No database.
 */
import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../../src/errors.js';
import { applyCorrections, correctPackages, listedCorrections } from '../../../src/vulns/corrections/apply.js';
import { checkCorrection, correctionApplies, matchedNames, type Correction, type CorrectionInput } from '../../../src/vulns/corrections/model.js';
import { matchPackages } from '../../../src/vulns/match-package.js';
import { MemoryVulnerabilityProvider } from './matching/memory-provider.js';

let serial = 0;
function correction(input: Omit<CorrectionInput, 'type'>): Correction {
  const at = `2026-11-01T00:00:${String(serial++).padStart(2, '0')}.000Z`;
  return { uuid: `00000000-0000-4000-8000-${String(serial).padStart(12, '0')}`, type: 'package', ...input, created_at: at, last_updated: at };
}

const lodash = { type: 'npm', name: 'lodash', version: '4.17.20', origin: null, purl: 'pkg:npm/lodash@4.17.20', path: '/app/node_modules/lodash/package.json' };
const log4j = { type: 'java', name: 'log4j-core', version: '2.14.1', origin: 'org.apache.logging.log4j', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1', path: '/opt/app/log4j.jar' };
const libc = { type: 'dpkg', name: 'libc6', version: '2.36-9', origin: 'glibc', purl: 'pkg:deb/debian/libc6@2.36-9', path: null };

describe('which packages a correction applies to', () => {
  it('needs the type and every field match; `*` is any value, `os` any distribution package', () => {
    expect(correctionApplies({ type: 'npm', field_matches: [{ field_name: 'package', field_value: 'lodash' }] }, lodash)).toBe(true);
    expect(correctionApplies({ type: 'npm', field_matches: [{ field_name: 'name', field_value: 'lodash' }, { field_name: 'version', field_value: '4.17.21' }] }, lodash)).toBe(false);
    expect(correctionApplies({ type: 'python', field_matches: [{ field_name: 'name', field_value: 'lodash' }] }, lodash)).toBe(false);
    expect(correctionApplies({ type: 'npm', field_matches: [{ field_name: 'location', field_value: '*' }] }, lodash)).toBe(true);
    expect(correctionApplies({ type: 'os', field_matches: [{ field_name: 'origin', field_value: '*' }] }, libc)).toBe(true);
    expect(correctionApplies({ type: 'os' }, lodash)).toBe(false);
    expect(correctionApplies({ type: 'java', field_matches: [{ field_name: 'purl', field_value: log4j.purl }] }, log4j)).toBe(true);
  });

  it('names the packages a match is limited to, for finding the images it applies to', () => {
    expect(matchedNames({ type: 'npm', field_matches: [{ field_name: 'package', field_value: 'lodash' }, { field_name: 'version', field_value: '1' }] })).toEqual(['lodash']);
    expect(matchedNames({ type: 'npm', field_matches: [{ field_name: 'name', field_value: '*' }] })).toBeUndefined();
    expect(matchedNames({ type: 'os' })).toBeUndefined();
  });
});

describe('applying corrections', () => {
  it('leaves packages no correction applies to as they are (the same objects)', () => {
    const list = [correction({ match: { type: 'python' }, replace: [{ field_name: 'name', field_value: 'x' }] })];
    const [out] = applyCorrections([lodash], list);
    expect(out).toBe(lodash);
  });

  it('replaces the name and version, and keeps CPE replacements from changing what is looked up', () => {
    const list = [
      correction({
        match: { type: 'npm', field_matches: [{ field_name: 'name', field_value: 'lodash' }] },
        replace: [
          { field_name: 'name', field_value: 'lodash-es' },
          { field_name: 'version', field_value: '4.17.21' },
          { field_name: 'cpes', field_value: 'cpe:2.3:a:lodash:lodash:4.17.21:*:*:*:*:*:*:*' },
        ],
      }),
    ];
    expect(applyCorrections([lodash], list)[0]).toEqual({ ...lodash, name: 'lodash-es', version: '4.17.21' });
  });

  it('reads a purl replacement as an imported SBOM purl: Maven namespace as origin, npm scope in the name', () => {
    const java = correction({ match: { type: 'java', field_matches: [{ field_name: 'name', field_value: 'log4j-core' }] }, replace: [{ field_name: 'purl', field_value: 'pkg:maven/org.example/patched-log4j@2.17.1' }] });
    expect(applyCorrections([log4j], [java])[0]).toMatchObject({ name: 'patched-log4j', origin: 'org.example', version: '2.17.1', purl: 'pkg:maven/org.example/patched-log4j@2.17.1', path: log4j.path });
    const npm = correction({ match: { type: 'npm' }, replace: [{ field_name: 'purl', field_value: 'pkg:npm/%40acme/lodash' }] });
    expect(applyCorrections([lodash], [npm])[0]).toMatchObject({ name: '@acme/lodash', version: '4.17.20' });
  });

  it('tests every correction against the package as analysed and applies them oldest first', () => {
    const first = correction({ match: { type: 'npm', field_matches: [{ field_name: 'name', field_value: 'lodash' }] }, replace: [{ field_name: 'name', field_value: 'first' }] });
    const second = correction({ match: { type: 'npm', field_matches: [{ field_name: 'name', field_value: 'lodash' }] }, replace: [{ field_name: 'name', field_value: 'second' }] });
    const chained = correction({ match: { type: 'npm', field_matches: [{ field_name: 'name', field_value: 'first' }] }, replace: [{ field_name: 'name', field_value: 'never' }] });
    expect(applyCorrections([lodash], [first, second, chained])[0]!.name).toBe('second');
  });

  it('is the step between the provider and matching: a corrected package no longer meets its advisory', async () => {
    const vulns = new MemoryVulnerabilityProvider().add('osv', [
      { id: 'GHSA-8', modified: '2026-01-01T00:00:00Z', affected: [{ package: { ecosystem: 'npm', name: 'lodash' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }] }] },
    ]);
    const ids = async (corrections: Correction[]) =>
      (await matchPackages(vulns, await correctPackages(listedCorrections(corrections), [lodash]), undefined))[0]!.map((m) => m.vulnId);
    expect(await ids([])).toEqual(['GHSA-8']);
    expect(await ids([correction({ match: { type: 'npm', field_matches: [{ field_name: 'name', field_value: 'lodash' }] }, replace: [{ field_name: 'purl', field_value: 'pkg:npm/lodash-es@4.17.20' }] })])).toEqual([]);
    expect(await ids([correction({ match: { type: 'npm' }, replace: [{ field_name: 'version', field_value: '4.17.21' }] })])).toEqual([]);
  });
});

describe('checking a correction', () => {
  const valid: CorrectionInput = { type: 'package', match: { type: 'npm' }, replace: [{ field_name: 'name', field_value: 'x' }] };

  it('accepts known types and fields', () => {
    expect(() => checkCorrection(valid)).not.toThrow();
    expect(() => checkCorrection({ ...valid, match: { type: 'os', field_matches: [{ field_name: 'origin', field_value: 'glibc' }] } })).not.toThrow();
  });

  it('lists every problem at once', () => {
    const bad = { ...valid, match: { type: 'cobol', field_matches: [{ field_name: 'cpe', field_value: 'x' }] }, replace: [{ field_name: 'purl', field_value: 'nope' }, { field_name: 'licenses', field_value: 'MIT' }] };
    try {
      checkCorrection(bad);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidError);
      expect((err as InvalidError).detail.errors).toEqual([
        expect.objectContaining({ location: 'body.match.type' }),
        expect.objectContaining({ location: 'body.match.field_matches.0.field_name' }),
        expect.objectContaining({ location: 'body.replace.0.field_value' }),
        expect.objectContaining({ location: 'body.replace.1.field_name' }),
      ]);
    }
  });
});
