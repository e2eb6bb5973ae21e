/**
 * Password hashing with argon2id, and a short-lived cache of successful verifications so an authenticated
 * request does not pay for a full hash every time. The cache key covers the stored hash, so a changed password
 * misses at once; user and account state are checked on every request outside this module.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hash, verify, Algorithm } from '@node-rs/argon2';

const MAX_CACHE_ENTRIES = 10_000;

export class PasswordHasher {
  private readonly verified = new Map<string, number>();
  /** Verifications in progress, so concurrent requests with the same credentials share one hash. */
  private readonly pending = new Map<string, Promise<boolean>>();
  /** A hash of a random password with the configured cost, made once, for verifyNothing. */
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly options: { memoryCostKib: number; timeCost: number; cacheSeconds: number },
  ) {}

  hash(password: string): Promise<string> {
    return hash(password, {
      algorithm: Algorithm.Argon2id,
      memoryCost: this.options.memoryCostKib,
      timeCost: this.options.timeCost,
      parallelism: 1,
    });
  }

  async verify(storedHash: string, password: string): Promise<boolean> {
    const key = createHash('sha256').update(storedHash).update('\0').update(password).digest('base64');
    const now = Date.now();
    const until = this.verified.get(key);
    if (until !== undefined && until > now) {
      // Sliding expiry: a busy user's entry does not lapse for all its in-flight requests at once.
      this.verified.set(key, now + this.options.cacheSeconds * 1000);
      return true;
    }
    let inFlight = this.pending.get(key);
    if (!inFlight) {
      inFlight = verify(storedHash, password).catch(() => false); // a malformed stored hash verifies nothing
      this.pending.set(key, inFlight);
      void inFlight.finally(() => this.pending.delete(key));
    }
    const ok = await inFlight;
    if (ok && this.options.cacheSeconds > 0) {
      if (this.verified.size >= MAX_CACHE_ENTRIES) this.evictExpired(Date.now());
      this.verified.set(key, Date.now() + this.options.cacheSeconds * 1000);
    }
    return ok;
  }

  /**
   * Spends what a real verification costs, for a user who does not exist or has no password: without it an
   * unknown username is answered several times faster than a wrong password, which tells usernames apart.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummyHash ??= this.hash(randomBytes(32).toString('base64url'));
    await verify(await this.dummyHash, password).catch(() => false);
    return false;
  }

  private evictExpired(now: number): void {
    for (const [k, until] of this.verified) if (until <= now) this.verified.delete(k);
    // Still full of live entries: drop the oldest half rather than grow without bound.
    if (this.verified.size >= MAX_CACHE_ENTRIES) {
      let drop = Math.floor(this.verified.size / 2);
      for (const k of this.verified.keys()) {
        if (drop-- <= 0) break;
        this.verified.delete(k);
      }
    }
  }
}
