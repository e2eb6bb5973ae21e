import { describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/auth/passwords.js';

const hasher = new PasswordHasher({ memoryCostKib: 1024, timeCost: 1, cacheSeconds: 60 });

describe('PasswordHasher', () => {
  it('stores argon2id hashes, never the password', async () => {
    const h = await hasher.hash('correct horse');
    expect(h).toMatch(/^\$argon2id\$/);
    expect(h).not.toContain('correct horse');
  });

  it('verifies the right password and refuses a wrong one, cached or not', async () => {
    const h = await hasher.hash('correct horse');
    expect(await hasher.verify(h, 'correct horse')).toBe(true);
    expect(await hasher.verify(h, 'correct horse')).toBe(true); // from the cache
    expect(await hasher.verify(h, 'wrong horse')).toBe(false);
  });

  it('does not carry a cached success over to a new hash (changed password)', async () => {
    const before = await hasher.hash('old password');
    expect(await hasher.verify(before, 'old password')).toBe(true);
    const after = await hasher.hash('new password');
    expect(await hasher.verify(after, 'old password')).toBe(false);
  });

  it('treats a malformed stored hash as a failed verification', async () => {
    expect(await hasher.verify('not-a-hash', 'anything')).toBe(false);
  });
});
