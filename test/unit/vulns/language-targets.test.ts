/** Where Rust, .NET and PHP packages are looked up: their OSV ecosystem, the name as it is indexed, the ordering. */
import { describe, expect, it } from 'vitest';
import { lookupTarget } from '../../../src/vulns/ecosystems.js';
import { normalizePackageName } from '../../../src/ecosystems/registry.js';

const target = (type: string, name: string, version: string) => {
  const t = lookupTarget({ type, name, version }, undefined);
  return t && { ecosystem: t.ecosystem, names: t.names, comparator: t.comparator.name };
};

describe('lookupTarget for Rust, .NET and PHP packages', () => {
  it('looks crates up in crates.io with SemVer, NuGet ids case-insensitively, Composer names lower-case', () => {
    expect(target('rust', 'hyper', '0.14.10')).toEqual({ ecosystem: 'crates.io', names: ['hyper'], comparator: 'semver' });
    expect(target('nuget', 'Microsoft.Data.SqlClient', '5.1.1')).toEqual({ ecosystem: 'nuget', names: ['microsoft.data.sqlclient'], comparator: 'nuget' });
    expect(target('composer', 'guzzlehttp/psr7', 'v2.4.1')).toEqual({ ecosystem: 'packagist', names: ['guzzlehttp/psr7'], comparator: 'composer' });
  });

  it('indexes feed names the way packages are looked up', () => {
    expect(normalizePackageName('NuGet', 'Microsoft.Data.SQLClient')).toBe('microsoft.data.sqlclient');
    expect(normalizePackageName('Packagist', 'GuzzleHttp/Psr7')).toBe('guzzlehttp/psr7');
    expect(normalizePackageName('crates.io', 'Inflector')).toBe('inflector');
  });

  it('does not look up a Composer branch install, which names no release', () => {
    expect(target('composer', 'acme/internal-lib', 'dev-main')).toBeUndefined();
    expect(target('composer', 'acme/internal-lib', '1.2.x-dev')).toBeDefined();
  });
});
