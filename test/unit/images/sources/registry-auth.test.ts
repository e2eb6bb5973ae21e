import { describe, expect, it } from 'vitest';
import { parseAuthChallenges } from '../../../../src/images/sources/registry-auth.js';

describe('parseAuthChallenges', () => {
  it('parses a Bearer challenge with quoted parameters', () => {
    expect(
      parseAuthChallenges('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"'),
    ).toEqual([
      { scheme: 'bearer', params: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/nginx:pull' } },
    ]);
  });

  it('parses several challenges in one header, unquoted values and escapes', () => {
    expect(parseAuthChallenges('Basic realm="a \\"b\\"", Bearer realm=https://x/token, error="insufficient_scope"')).toEqual([
      { scheme: 'basic', params: { realm: 'a "b"' } },
      { scheme: 'bearer', params: { realm: 'https://x/token', error: 'insufficient_scope' } },
    ]);
  });

  it('copes with absent or empty headers', () => {
    expect(parseAuthChallenges(undefined)).toEqual([]);
    expect(parseAuthChallenges('Basic')).toEqual([{ scheme: 'basic', params: {} }]);
  });
});
