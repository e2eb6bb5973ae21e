/**
 * Throttles repeated authentication failures for one username from one client address. After maxFailures
 * failures inside the window, further attempts are refused for lockoutSeconds without checking the password.
 * Kept in memory per node: it slows guessing down, it is not an account lockout.
 */
export interface ThrottleOptions {
  maxFailures: number;
  failureWindowSeconds: number;
  lockoutSeconds: number;
}

interface Entry {
  failures: number;
  windowStart: number;
  lockedUntil: number;
}

const MAX_ENTRIES = 100_000;

export class LoginThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: ThrottleOptions) {}

  private key(client: string, username: string): string {
    return `${client}\u0000${username}`;
  }

  /** Seconds the caller must wait, or 0 when an attempt is allowed now. */
  retryAfter(client: string, username: string, now = Date.now()): number {
    const e = this.entries.get(this.key(client, username));
    if (!e || e.lockedUntil <= now) return 0;
    return Math.max(1, Math.ceil((e.lockedUntil - now) / 1000));
  }

  recordFailure(client: string, username: string, now = Date.now()): void {
    const key = this.key(client, username);
    let e = this.entries.get(key);
    if (!e || now - e.windowStart > this.options.failureWindowSeconds * 1000) {
      if (!e && this.entries.size >= MAX_ENTRIES) this.prune(now);
      e = { failures: 0, windowStart: now, lockedUntil: 0 };
      this.entries.set(key, e);
    }
    e.failures += 1;
    if (e.failures >= this.options.maxFailures) {
      e.lockedUntil = now + this.options.lockoutSeconds * 1000;
      e.failures = 0;
      e.windowStart = now;
    }
  }

  recordSuccess(client: string, username: string): void {
    this.entries.delete(this.key(client, username));
  }

  private prune(now: number): void {
    const windowMs = this.options.failureWindowSeconds * 1000;
    for (const [k, e] of this.entries) if (e.lockedUntil <= now && now - e.windowStart > windowMs) this.entries.delete(k);
  }
}
