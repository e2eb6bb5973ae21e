/**
 * OAuth bearer tokens: JWTs signed with a shared secret (HS256) or a key pair (RS256/ES256).
 * Every node of a deployment must verify with the same key: configure it, or on a single node let the first
 * start generate a secret and keep it in the database so restarts don't invalidate tokens.
 * Access and refresh tokens carry a `jti`; revoking one records the jti until the token would expire anyway.
 * They also carry the user's token generation (`gen`): a password change, a disabled user or a removed role
 * bumps it (users.revokeUserTokens), which ends all the user's earlier tokens in one write.
 */
import { randomBytes, randomUUID, webcrypto, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, importPKCS8, importSPKI, errors as joseErrors } from 'jose';
import type { Config, JwtAlgorithm } from '../config.js';
import type { Db } from '../db/index.js';
import { nowIso } from '../util/time.js';

const ISSUER = 'vigil';
const AUDIENCE = 'vigil-api';
const SECRET_SETTING = 'jwt_hs256_secret';

export type TokenKind = 'access' | 'refresh';

export interface TokenClaims {
  username: string;
  accountName: string;
  kind: TokenKind;
  jti: string;
  expiresAt: number;
  /** The user's token generation when the token was issued (0 for tokens from before generations existed). */
  generation: number;
}

export interface IssuedTokens {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
  refresh_token: string;
}

type SigningKey = KeyObject | Awaited<ReturnType<typeof importPKCS8>>;

export class TokenService {
  private constructor(
    private readonly db: Db,
    private readonly algorithm: JwtAlgorithm,
    private readonly signKey: SigningKey,
    private readonly verifyKey: SigningKey,
    private readonly accessTtl: number,
    private readonly refreshTtl: number,
  ) {}

  static async create(db: Db, config: Pick<Config, 'jwt' | 'tokenTtlSeconds' | 'refreshTokenTtlSeconds'>): Promise<TokenService> {
    const { algorithm } = config.jwt;
    let signKey: SigningKey;
    let verifyKey: SigningKey;
    if (algorithm === 'HS256') {
      const secret = config.jwt.secret ?? (await loadOrCreateSecret(db));
      // Imported once as a WebCrypto key: jose re-imports a KeyObject on every sign and verify.
      signKey = verifyKey = await webcrypto.subtle.importKey('raw', Buffer.from(secret, 'utf8'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    } else {
      signKey = await importPKCS8(config.jwt.privateKeyPem!, algorithm);
      verifyKey = await importSPKI(config.jwt.publicKeyPem!, algorithm);
    }
    return new TokenService(db, algorithm, signKey, verifyKey, config.tokenTtlSeconds, config.refreshTokenTtlSeconds);
  }

  get accessTokenLifetime(): number {
    return this.accessTtl;
  }

  private async sign(username: string, accountName: string, generation: number, kind: TokenKind, ttl: number): Promise<string> {
    return new SignJWT({ acct: accountName, typ: kind, gen: generation })
      .setProtectedHeader({ alg: this.algorithm, typ: 'JWT' })
      .setSubject(username)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttl)
      .setJti(randomUUID())
      .sign(this.signKey);
  }

  /** `generation`: the user's token generation as read when the caller authenticated (never re-read here, so a
   * credential change racing the sign-in still revokes what it issues). */
  async issue(username: string, accountName: string, generation: number): Promise<IssuedTokens> {
    return {
      access_token: await this.sign(username, accountName, generation, 'access', this.accessTtl),
      expires_in: this.accessTtl,
      token_type: 'Bearer',
      refresh_token: await this.sign(username, accountName, generation, 'refresh', this.refreshTtl),
    };
  }

  /**
   * Verifies signature (only the configured algorithm: `alg: none` and algorithm swaps fail), issuer,
   * audience, expiry, kind and revocation. Answers the claims, or why the token is refused.
   */
  async verify(
    token: string,
    kind: TokenKind,
    options: { checkRevoked: boolean } = { checkRevoked: true },
  ): Promise<{ ok: true; claims: TokenClaims } | { ok: false; reason: string }> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.verifyKey, { algorithms: [this.algorithm], issuer: ISSUER, audience: AUDIENCE }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: 'token has expired' };
      return { ok: false, reason: 'token is not valid' };
    }
    if (payload.typ !== kind) return { ok: false, reason: kind === 'access' ? 'not an access token' : 'not a refresh token' };
    const generation = payload.gen ?? 0;
    if (typeof payload.sub !== 'string' || typeof payload.acct !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number' || !Number.isSafeInteger(generation))
      return { ok: false, reason: 'token is not valid' };
    if (options.checkRevoked && (await this.isRevoked(payload.jti))) return { ok: false, reason: 'token has been revoked' };
    return { ok: true, claims: { username: payload.sub, accountName: payload.acct, kind, jti: payload.jti, expiresAt: payload.exp, generation: generation as number } };
  }

  private async isRevoked(jti: string): Promise<boolean> {
    return !!(await this.db('revoked_tokens').where({ jti }).first('jti'));
  }

  async revoke(claims: Pick<TokenClaims, 'jti' | 'expiresAt'>): Promise<void> {
    await this.db('revoked_tokens')
      .insert({ jti: claims.jti, expires_at: new Date(claims.expiresAt * 1000).toISOString() })
      .onConflict('jti')
      .ignore();
    // Revocations of tokens that have expired anyway are no longer needed.
    await this.db('revoked_tokens').where('expires_at', '<', nowIso()).delete();
  }

  /** Revokes any token this service issued and can still verify, whichever its kind. Unknown tokens are ignored. */
  async revokeToken(token: string): Promise<void> {
    for (const kind of ['access', 'refresh'] as const) {
      const result = await this.verify(token, kind);
      if (result.ok) return this.revoke(result.claims);
    }
  }
}

async function loadOrCreateSecret(db: Db): Promise<string> {
  const existing = await db('settings').where({ key: SECRET_SETTING }).first('value');
  if (existing) return existing.value;
  const secret = randomBytes(48).toString('base64url');
  // Two nodes starting at once on one database: whichever insert wins, both read back the same value.
  await db('settings').insert({ key: SECRET_SETTING, value: secret }).onConflict('key').ignore();
  const stored = await db('settings').where({ key: SECRET_SETTING }).first('value');
  return stored.value;
}
