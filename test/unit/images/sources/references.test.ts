import { describe, expect, it } from 'vitest';
import { ImageReferenceError } from '../../../../src/images/sources/errors.js';
import {
  formatImageReference,
  fullDigest,
  fullTag,
  parseImageReference,
  registryApiHost,
} from '../../../../src/images/sources/references.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('parseImageReference', () => {
  it('normalises Docker Hub names as docker pull does', () => {
    expect(parseImageReference('nginx:1.25')).toEqual({ registry: 'docker.io', repository: 'library/nginx', tag: '1.25' });
    expect(parseImageReference('nginx')).toEqual({ registry: 'docker.io', repository: 'library/nginx', tag: 'latest' });
    expect(parseImageReference('user/app')).toEqual({ registry: 'docker.io', repository: 'user/app', tag: 'latest' });
    expect(parseImageReference('docker.io/nginx')).toEqual({ registry: 'docker.io', repository: 'library/nginx', tag: 'latest' });
    expect(parseImageReference('index.docker.io/user/app:v1')).toEqual({ registry: 'docker.io', repository: 'user/app', tag: 'v1' });
  });

  it('detects a registry host by a dot, a port or localhost in the first component', () => {
    expect(parseImageReference(`localhost:5000/x/y@${DIGEST}`)).toEqual({ registry: 'localhost:5000', repository: 'x/y', digest: DIGEST });
    expect(parseImageReference('localhost/app')).toEqual({ registry: 'localhost', repository: 'app', tag: 'latest' });
    expect(parseImageReference('ghcr.io/org/team/app:2.0')).toEqual({ registry: 'ghcr.io', repository: 'org/team/app', tag: '2.0' });
    expect(parseImageReference('127.0.0.1:5000/app')).toEqual({ registry: '127.0.0.1:5000', repository: 'app', tag: 'latest' });
    expect(parseImageReference('[::1]:5000/app:x')).toEqual({ registry: '[::1]:5000', repository: 'app', tag: 'x' });
    // No dot, port or localhost: a Docker Hub namespace, not a host.
    expect(parseImageReference('myregistry/app')).toEqual({ registry: 'docker.io', repository: 'myregistry/app', tag: 'latest' });
  });

  it('keeps both tag and digest when both are given', () => {
    expect(parseImageReference(`nginx:1.25@${DIGEST}`)).toEqual({ registry: 'docker.io', repository: 'library/nginx', tag: '1.25', digest: DIGEST });
  });

  it.each([
    ['', 'empty'],
    ['Nginx', 'lowercase'],
    ['nginx:', 'invalid tag'],
    ['nginx:-bad', 'invalid tag'],
    ['nginx@sha256:abc', 'invalid digest'],
    [`nginx@sha256:${'A'.repeat(64)}`, 'invalid sha256 digest'],
    ['nginx@md5', 'invalid digest'],
    ['a//b', 'invalid repository path component'],
    ['repo/-x', 'invalid repository path component'],
    ['my host/x', 'whitespace'],
    ['exa_mple.com/x', 'invalid registry host'],
    [`x/${'a'.repeat(300)}`, 'longer than 255'],
  ])('rejects %j with a typed error (%s)', (input, message) => {
    let err: unknown;
    try {
      parseImageReference(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ImageReferenceError);
    expect((err as Error).message).toContain(message);
    expect((err as ImageReferenceError).errorType).toBe('invalid_image_reference');
  });
});

describe('formatters', () => {
  it('formats full tags and digests', () => {
    const ref = parseImageReference('nginx:1.25');
    expect(fullTag(ref)).toBe('docker.io/library/nginx:1.25');
    expect(fullDigest(ref, DIGEST)).toBe(`docker.io/library/nginx@${DIGEST}`);
    expect(() => fullDigest(ref)).toThrow(ImageReferenceError);
    expect(formatImageReference(parseImageReference(`localhost:5000/x/y:t@${DIGEST}`))).toBe(`localhost:5000/x/y:t@${DIGEST}`);
  });

  it('maps docker.io to its API host', () => {
    expect(registryApiHost('docker.io')).toBe('registry-1.docker.io');
    expect(registryApiHost('ghcr.io')).toBe('ghcr.io');
  });
});
