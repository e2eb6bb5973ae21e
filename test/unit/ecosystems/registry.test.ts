/**
 * The registry is the one list of ecosystems: every package type has exactly one entry, names in other formats
 * do not collide, every feed ecosystem belongs to one type, and the tables derived from it agree with the spec.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OS_PACKAGE_TYPES, type PackageType } from '../../../src/ecosystems/model.js';
import {
  ALL_CATALOGERS,
  CONTENT_TYPES,
  distroFeedOf,
  ECOSYSTEMS,
  ecosystemOf,
  indexNamesOf,
  MATCHED_ECOSYSTEMS,
  normalizePackageName,
  osvNameOf,
  OWNABLE_TYPES,
  ownershipKey,
  typeFromPurlType,
  typeFromSyftType,
  typeOfFeed,
} from '../../../src/ecosystems/registry.js';

const ALL_TYPES: PackageType[] = ['dpkg', 'apk', 'rpm', 'npm', 'python', 'gem', 'java', 'go', 'rust', 'nuget', 'composer'];

describe('ecosystem registry', () => {
  it('has one ecosystem per package type, OS package managers first', () => {
    expect(ECOSYSTEMS.map((e) => e.type).sort()).toEqual([...ALL_TYPES].sort());
    expect(ECOSYSTEMS.slice(0, OS_PACKAGE_TYPES.length).map((e) => e.type)).toEqual([...OS_PACKAGE_TYPES]);
    for (const type of ALL_TYPES) expect(ecosystemOf(type)?.type).toBe(type);
    expect(ecosystemOf('cobol')).toBeUndefined();
  });

  it('gives cataloger names, purl types and syft types that name one type each, and reads them back', () => {
    expect(new Set(ALL_CATALOGERS.map((c) => c.name)).size).toBe(ALL_CATALOGERS.length);
    for (const e of ECOSYSTEMS) {
      expect(e.catalogers.length).toBeGreaterThan(0);
      expect(typeFromPurlType(e.names.purl)).toBe(e.type);
      expect(typeFromSyftType(e.names.syft)).toBe(e.type);
      expect(typeFromSyftType(e.type)).toBe(e.type);
    }
    expect(typeFromSyftType('jenkins-plugin')).toBe('java');
    expect(typeFromPurlType('GOLANG')).toBe('go');
  });

  it('files every OSV ecosystem under one type, with OSV spelling for the export folder', () => {
    const keys = ECOSYSTEMS.flatMap((e) => e.feeds.map((f) => f.key));
    expect(new Set(keys).size).toBe(keys.length);
    expect(MATCHED_ECOSYSTEMS).toEqual(keys);
    expect(osvNameOf('pypi')).toBe('PyPI');
    expect(osvNameOf('RED HAT')).toBe('Red Hat');
    expect(typeOfFeed('rocky linux')).toBe('rpm');
    expect(typeOfFeed('crates.io')).toBe('rust');
    expect(typeOfFeed('hex')).toBeUndefined();
    for (const e of ECOSYSTEMS) {
      if (OS_PACKAGE_TYPES.includes(e.type)) expect(e.distros).toEqual(e.feeds);
      else expect(e.distros).toBeUndefined();
    }
  });

  it('normalises names per ecosystem, and searches every spelling', () => {
    expect(normalizePackageName('PyPI', 'Py_YAML.x')).toBe('py-yaml-x');
    expect(normalizePackageName('npm', 'JSONStream')).toBe('jsonstream');
    expect(normalizePackageName('maven', 'Org.X:Y')).toBe('Org.X:Y');
    expect(normalizePackageName('debian', 'Libc6')).toBe('Libc6');
    expect(normalizePackageName('unknown', 'Abc')).toBe('Abc');
    expect(indexNamesOf('Py_YAML')).toEqual(['Py_YAML', 'py_yaml', 'py-yaml']);
  });

  it('maps an image to its distribution feed and release, by ID and then ID_LIKE', () => {
    expect(distroFeedOf({ name: 'debian', version: '12.4', like: [] })).toEqual({ ecosystem: 'debian', release: '12' });
    expect(distroFeedOf({ name: 'centos', version: '9', like: ['rhel', 'fedora'] })).toEqual({ ecosystem: 'red hat', release: '9' });
    expect(distroFeedOf({ name: 'wolfi', version: '20230201', like: [] })).toEqual({ ecosystem: 'wolfi' });
    expect(distroFeedOf({ name: 'opensuse-leap', version: '15.5', like: ['suse', 'opensuse'] })).toEqual({ ecosystem: 'opensuse', release: 'leap-15.5' });
    expect(distroFeedOf({ name: 'plan9', version: '4', like: [] })).toBeUndefined();
    expect(distroFeedOf(undefined)).toBeUndefined();
  });

  it('looks an OS package up only in its own package manager\'s distributions', () => {
    const rhel = { name: 'rhel', version: '9.3', like: ['fedora'] };
    expect(ecosystemOf('rpm')!.lookup({ type: 'rpm', name: 'openssl', version: '1' }, rhel)).toMatchObject({ ecosystem: 'red hat', release: '9' });
    expect(ecosystemOf('dpkg')!.lookup({ type: 'dpkg', name: 'openssl', version: '1' }, rhel)).toBeUndefined();
  });

  it('composes the ownership key of the ownable language ecosystems', () => {
    expect([...OWNABLE_TYPES].sort()).toEqual(['gem', 'java', 'npm', 'python']);
    expect(ownershipKey('/usr/lib/python3/dist-packages/yaml/__init__.py')).toBeUndefined();
    expect(ownershipKey('/usr/lib/python3/dist-packages/PyYAML-5.4.1.egg-info/PKG-INFO')).toBe('/usr/lib/python3/dist-packages/PyYAML-5.4.1.egg-info');
    expect(ownershipKey('/usr/share/java/a.jar')).toBe('/usr/share/java/a.jar');
  });

  it('lists content types as the spec\'s content_type enum names them (java and files have their own routes)', () => {
    const swagger = JSON.parse(readFileSync(join(import.meta.dirname, '../../../generated/swagger.json'), 'utf8'));
    const param = swagger.paths['/images/{image_digest}/content/{content_type}'].parameters.find((p: { name: string }) => p.name === 'content_type');
    expect(CONTENT_TYPES.map((c) => c.type).filter((t) => t !== 'java').sort()).toEqual([...param.enum].sort());
    expect(CONTENT_TYPES.find((c) => c.type === 'os')?.packageTypes).toEqual(['dpkg', 'apk', 'rpm']);
  });
});
