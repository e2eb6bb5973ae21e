import { describe, expect, it } from 'vitest';
import type { GateDefinition, ParamDefinition, TriggerDefinition } from '../../../src/policy/gate-types.js';
import { ACTIVE_GATES, ALL_GATES, EOL_GATES, findGate } from '../../../src/policy/gates/index.js';

function gate(name: string): GateDefinition {
  const g = ALL_GATES.find((x) => x.name === name);
  if (!g) throw new Error(`no gate ${name}`);
  return g;
}

function trigger(gateName: string, triggerName: string): TriggerDefinition {
  const t = gate(gateName).triggers.find((x) => x.name === triggerName);
  if (!t) throw new Error(`no trigger ${gateName}/${triggerName}`);
  return t;
}

function param(gateName: string, triggerName: string, paramName: string): ParamDefinition {
  const p = trigger(gateName, triggerName).params.find((x) => x.name === paramName);
  if (!p) throw new Error(`no param ${gateName}/${triggerName}/${paramName}`);
  return p;
}

const allParams = ALL_GATES.flatMap((g) => g.triggers.flatMap((t) => t.params.map((p) => ({ g, t, p }))));

function expectUniqueLowerCase(names: string[], where: string): void {
  for (const n of names) expect(n, `${where}: ${n}`).toBe(n.toLowerCase());
  expect(new Set(names).size, `${where}: duplicate in ${names.join(', ')}`).toBe(names.length);
}

describe('gate definitions', () => {
  it('has the expected active gates, in alphabetical order, each with at least one trigger', () => {
    const names = ACTIVE_GATES.map((g) => g.name);
    expect(names).toEqual([
      'always',
      'ancestry',
      'distro',
      'dockerfile',
      'files',
      'licenses',
      'metadata',
      'packages',
      'passwd_file',
      'retrieved_files',
      'secret_scans',
      'tag_drift',
      'vulnerabilities',
    ]);
    expect([...names].sort()).toEqual(names);
    for (const g of ACTIVE_GATES) {
      expect(g.state, g.name).toBe('active');
      expect(g.triggers.length, g.name).toBeGreaterThan(0);
      expect(g.description.trim(), g.name).not.toBe('');
      for (const t of g.triggers) expect(t.description.trim(), `${g.name}/${t.name}`).not.toBe('');
    }
    expect(ALL_GATES).toEqual([...ACTIVE_GATES, ...EOL_GATES]);
  });

  it('uses lower-case names that are unique within their scope', () => {
    expectUniqueLowerCase(
      ALL_GATES.map((g) => g.name),
      'gates',
    );
    for (const g of ALL_GATES) {
      expectUniqueLowerCase(
        g.triggers.map((t) => t.name),
        g.name,
      );
      for (const t of g.triggers) {
        const names = t.params.map((p) => p.name);
        const aliases = t.params.flatMap((p) => p.aliases ?? []);
        expectUniqueLowerCase(names, `${g.name}/${t.name}`);
        // aliases are lower case, unique, and never collide with a parameter name
        expectUniqueLowerCase([...names, ...aliases], `${g.name}/${t.name} (with aliases)`);
      }
    }
  });

  it('gives every parameter a description and a validator', () => {
    expect(allParams.length).toBeGreaterThan(0);
    for (const { g, t, p } of allParams) {
      const where = `${g.name}/${t.name}/${p.name}`;
      expect(p.description.trim(), where).not.toBe('');
      expect(typeof p.validator.check, where).toBe('function');
      expect(p.validator.type, where).not.toBe('');
      expect(typeof p.required, where).toBe('boolean');
    }
  });

  it('accepts every example value with its own validator', () => {
    const withExamples = allParams.filter(({ p }) => p.example !== undefined);
    expect(withExamples.length).toBeGreaterThan(50);
    for (const { g, t, p } of withExamples) {
      expect(p.validator.check(p.example!), `${g.name}/${t.name}/${p.name} = ${p.example}`).toBeUndefined();
    }
  });

  it('marks the parameters the reference requires as required', () => {
    expect(param('dockerfile', 'instruction', 'instruction').required).toBe(true);
    expect(param('dockerfile', 'instruction', 'check').required).toBe(true);
    expect(param('dockerfile', 'instruction', 'value').required).toBe(false);
    expect(param('vulnerabilities', 'package', 'package_type').required).toBe(true);
    expect(param('vulnerabilities', 'stale_feed_data', 'max_days_since_sync').required).toBe(true);
    const userNames = param('passwd_file', 'blacklist_usernames', 'user_names');
    expect(userNames.required).toBe(true);
    expect(userNames.aliases).toEqual(['usernameblacklist']);
    expect(param('passwd_file', 'blacklist_userids', 'user_ids').aliases).toEqual(['useridblacklist']);
    expect(param('packages', 'metadata', 'name').required).toBe(true);
    expect(param('distro', 'deny', 'distro').required).toBe(true);
    expect(param('ancestry', 'allowed_base_image_digest', 'base_digest').required).toBe(true);
    // every vulnerabilities/package param other than package_type is optional
    expect(
      trigger('vulnerabilities', 'package')
        .params.filter((p) => p.required)
        .map((p) => p.name),
    ).toEqual(['package_type']);
  });

  it('uses validators that match the reference types', () => {
    const v = (g: string, t: string, p: string) => param(g, t, p).validator;
    expect(v('dockerfile', 'instruction', 'instruction').check('FROM')).toBeUndefined();
    expect(v('dockerfile', 'instruction', 'instruction').check('from')).toBeDefined(); // enums are case-sensitive
    expect(v('dockerfile', 'exposed_ports', 'ports').type).toBe('CommaDelimitedNumberList');
    expect(v('vulnerabilities', 'package', 'cvss_v3_base_score').type).toBe('FloatString');
    expect(v('vulnerabilities', 'package', 'max_days_since_fix').type).toBe('IntegerString');
    expect(v('vulnerabilities', 'package', 'fix_available').type).toBe('BooleanString');
    expect(v('vulnerabilities', 'package', 'package_path_exclude').check('(')).toBeDefined();
    expect(v('files', 'name_match', 'regex').check('[')).toBeDefined();
    expect(v('packages', 'metadata', 'version_comparison').criteria).toEqual({
      type: 'string',
      enum: ['=', '!=', '<', '>', '<=', '>='],
    });
  });

  it('has every reference parameter on vulnerabilities/package, plus the Vigil additions', () => {
    const names = trigger('vulnerabilities', 'package').params.map((p) => p.name);
    const scores = ['cvss_v3_base_score', 'cvss_v3_exploitability_score', 'cvss_v3_impact_score'];
    const withComparisons = (list: string[]) => list.flatMap((n) => [`${n}_comparison`, n]);
    expect([...names].sort()).toEqual(
      [
        'package_type',
        ...withComparisons(['severity']),
        ...withComparisons(scores),
        'fix_available',
        'vendor_only',
        'max_days_since_creation',
        'max_days_since_fix',
        ...withComparisons(scores.map((s) => `vendor_${s}`)),
        'package_path_exclude',
        // Vigil additions
        'known_exploited_vulnerability',
        'epss_score_comparison',
        'epss_score',
        'epss_percentile',
        'confidence',
      ].sort(),
    );
  });

  it('keeps the blacklist trigger names as deprecated aliases of the denylist ones, with the same params', () => {
    const pairs: [string, string, string][] = [
      ['licenses', 'blacklist_exact_match', 'denylist_exact_match'],
      ['licenses', 'blacklist_partial_match', 'denylist_partial_match'],
      ['packages', 'blacklist', 'denylist'],
      ['vulnerabilities', 'blacklist', 'denylist'],
    ];
    for (const [g, old, current] of pairs) {
      const o = trigger(g, old);
      const c = trigger(g, current);
      expect(o.state, `${g}/${old}`).toBe('deprecated');
      expect(o.supersededBy, `${g}/${old}`).toBe(current);
      expect(c.state ?? 'active', `${g}/${current}`).toBe('active');
      expect(o.params, `${g}/${old}`).toEqual(c.params);
    }
  });

  it('defines the end-of-life gates as eol, with their triggers', () => {
    expect(EOL_GATES.map((g) => g.name)).toEqual([
      'anchoresec',
      'dockerfilecheck',
      'filecheck',
      'fileparse_passwd',
      'gemcheck',
      'imagecheck',
      'licblacklist',
      'metadatacheck',
      'npmcheck',
      'pkgblacklist',
      'pkgcheck',
      'pkgdiff',
      'secretcheck',
      'suiddiff',
    ]);
    for (const g of EOL_GATES) {
      expect(g.state, g.name).toBe('eol');
      expect(g.triggers.length, g.name).toBeGreaterThan(0);
      for (const t of g.triggers) {
        expect(t.state, `${g.name}/${t.name}`).toBe('eol');
        expect(t.params, `${g.name}/${t.name}`).toEqual([]);
      }
    }
    expect(EOL_GATES.reduce((n, g) => n + g.triggers.length, 0)).toBe(56);
    expect(gate('anchoresec').supersededBy).toBe('vulnerabilities');
    expect(gate('imagecheck').supersededBy).toBeUndefined();
  });

  it('finds gates case-insensitively', () => {
    expect(findGate('vulnerabilities')).toBe(gate('vulnerabilities'));
    expect(findGate('Vulnerabilities')).toBe(gate('vulnerabilities'));
    expect(findGate('PASSWD_FILE')).toBe(gate('passwd_file'));
    expect(findGate('AnchoreSec')?.state).toBe('eol');
    expect(findGate('no_such_gate')).toBeUndefined();
  });
});
