import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../src/auth/throttle.js';

describe('LoginThrottle', () => {
  const options = { maxFailures: 3, failureWindowSeconds: 60, lockoutSeconds: 30 };

  it('locks a username/client pair after maxFailures and tells how long to wait', () => {
    const t = new LoginThrottle(options);
    const now = 1_000_000;
    t.recordFailure('1.2.3.4', 'bob', now);
    t.recordFailure('1.2.3.4', 'bob', now);
    expect(t.retryAfter('1.2.3.4', 'bob', now)).toBe(0);
    t.recordFailure('1.2.3.4', 'bob', now);
    expect(t.retryAfter('1.2.3.4', 'bob', now)).toBe(30);
    expect(t.retryAfter('1.2.3.4', 'bob', now + 29_500)).toBe(1);
    expect(t.retryAfter('1.2.3.4', 'bob', now + 30_000)).toBe(0);
  });

  it('keeps other usernames and other clients unaffected', () => {
    const t = new LoginThrottle(options);
    for (let i = 0; i < 3; i++) t.recordFailure('1.2.3.4', 'bob', 0);
    expect(t.retryAfter('1.2.3.4', 'alice', 0)).toBe(0);
    expect(t.retryAfter('5.6.7.8', 'bob', 0)).toBe(0);
  });

  it('forgets failures outside the window and after a success', () => {
    const t = new LoginThrottle(options);
    t.recordFailure('c', 'u', 0);
    t.recordFailure('c', 'u', 0);
    t.recordFailure('c', 'u', 61_000); // window restarted: 1 failure
    expect(t.retryAfter('c', 'u', 61_000)).toBe(0);
    t.recordFailure('c', 'u', 61_000);
    t.recordSuccess('c', 'u');
    t.recordFailure('c', 'u', 61_000);
    expect(t.retryAfter('c', 'u', 61_000)).toBe(0);
  });
});
