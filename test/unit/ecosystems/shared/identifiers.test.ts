import { describe, expect, it } from 'vitest';
import { cpe23, purl } from '../../../../src/ecosystems/shared/identifiers.js';

describe('purl', () => {
  it('builds canonical package URLs with sorted, encoded qualifiers', () => {
    expect(purl('deb', 'debian', 'libc6', '2.36-9+deb12u4', { distro: 'debian-12', arch: 'amd64' })).toBe(
      'pkg:deb/debian/libc6@2.36-9+deb12u4?arch=amd64&distro=debian-12',
    );
    expect(purl('npm', '@babel', 'core', '7.24.0')).toBe('pkg:npm/%40babel/core@7.24.0');
    expect(purl('maven', 'org.apache.logging.log4j', 'log4j-core', '2.14.1')).toBe('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1');
  });

  it('drops empty qualifiers and namespaces', () => {
    expect(purl('pypi', undefined, 'requests', '2.28.1', { arch: undefined })).toBe('pkg:pypi/requests@2.28.1');
  });
});

describe('cpe23', () => {
  it('escapes special characters and lower-cases', () => {
    expect(cpe23('Apache', 'log4j', '2.14.1')).toBe('cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*');
    expect(cpe23('python', 'requests', '2.28.1+local')).toBe('cpe:2.3:a:python:requests:2.28.1\\+local:*:*:*:*:*:*:*');
    expect(cpe23('x', 'a:b', '')).toBe('cpe:2.3:a:x:a\\:b:*:*:*:*:*:*:*:*');
  });
});
