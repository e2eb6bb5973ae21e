/**
 * The three ways to authenticate, as plain functions of presented credentials. Each answers a Principal or
 * throws UnauthorizedError (with a reason safe to show) or TooManyRequestsError. User and account state are
 * read on every call, so disabling either takes effect at once for passwords, API keys and tokens alike.
 */
import type { Db } from '../db/index.js';
import { TooManyRequestsError, UnauthorizedError } from '../errors.js';
import { apiKeyProblem, splitApiKey, ssoKeyProblem } from './api-keys.js';
import type { PasswordHasher } from './passwords.js';
import { API_KEY_USERNAME, type AuthMethod, type Principal } from './principal.js';
import type { LoginThrottle } from './throttle.js';
import type { TokenService } from './tokens.js';
import { findApiKeyLogin, findLoginRecord, findTokenLogin, type LoginRecord } from './users.js';

const BAD_PASSWORD = 'invalid username or password';

export class Authenticator {
  constructor(
    private readonly db: Db,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly throttle: LoginThrottle,
  ) {}

  private checkThrottle(client: string, username: string): void {
    const wait = this.throttle.retryAfter(client, username);
    if (wait > 0)
      throw new TooManyRequestsError(`too many failed attempts for '${username}'; retry in ${wait} s`, wait);
  }

  private refuse(client: string, username: string, reason: string): never {
    this.throttle.recordFailure(client, username);
    throw new UnauthorizedError(reason);
  }

  private principalOf(login: LoginRecord, method: AuthMethod, tokenId?: string): Principal {
    return {
      username: login.username,
      accountName: login.account_name,
      accountType: login.account_type,
      method,
      isAdmin: login.account_type === 'admin',
      account: {
        name: login.account_name,
        email: login.account_email,
        type: login.account_type,
        state: login.account_state,
        created_at: login.account_created_at,
        last_updated: login.account_last_updated,
      },
      ...(tokenId ? { tokenId } : {}),
      tokenGeneration: login.token_generation,
    };
  }

  /** Reasons a known user may not authenticate right now, whatever the credential. */
  private stateProblem(login: LoginRecord): string | null {
    if (login.user_state !== 'enabled') return `user '${login.username}' is disabled`;
    if (login.account_state !== 'enabled') return `account '${login.account_name}' is ${login.account_state}`;
    return null;
  }

  async byPassword(username: string, password: string, client: string): Promise<Principal> {
    this.checkThrottle(client, username);
    const login = await findLoginRecord(this.db, username);
    if (login?.user_type === 'saml') {
      await this.hasher.verifyNothing(password);
      const protocol = login.user_source === 'oidc' ? 'OpenID Connect provider' : 'SAML identity provider';
      this.refuse(client, username, `user '${username}' signs in through ${protocol} '${login.idp_name}', not with a password`);
    }
    if (!login?.password_hash) {
      await this.hasher.verifyNothing(password);
      this.refuse(client, username, BAD_PASSWORD);
    }
    if (!(await this.hasher.verify(login.password_hash, password))) this.refuse(client, username, BAD_PASSWORD);
    const problem = this.stateProblem(login);
    if (problem) this.refuse(client, username, problem);
    this.throttle.recordSuccess(client, username);
    return this.principalOf(login, 'password');
  }

  async byApiKey(value: string, client: string): Promise<Principal> {
    const parts = splitApiKey(value);
    // Throttled per key id, so a stale key behind a shared address (NAT, CI runner) cannot lock out other keys.
    const throttleName = `${API_KEY_USERNAME}:${parts?.keyId ?? 'malformed'}`;
    this.checkThrottle(client, throttleName);
    if (!parts) this.refuse(client, throttleName, 'not a Vigil API key');
    const login = await findApiKeyLogin(this.db, parts.keyId);
    const keyProblem = apiKeyProblem(parts.secret, login);
    if (keyProblem || !login) this.refuse(client, throttleName, keyProblem ?? 'unknown API key');
    const problem = this.stateProblem(login) ?? ssoKeyProblem(login);
    if (problem) this.refuse(client, throttleName, problem);
    this.throttle.recordSuccess(client, throttleName);
    return this.principalOf(login, 'api_key');
  }

  async byToken(token: string): Promise<Principal> {
    // Revocation is checked in the same query as the user and account, below.
    const result = await this.tokens.verify(token, 'access', { checkRevoked: false });
    if (!result.ok) throw new UnauthorizedError(result.reason);
    const login = await findTokenLogin(this.db, result.claims.username, result.claims.jti);
    if (!login || login.account_name !== result.claims.accountName) throw new UnauthorizedError('token is not valid');
    if (login.revoked) throw new UnauthorizedError('token has been revoked');
    const problem = this.stateProblem(login);
    if (problem) throw new UnauthorizedError(problem);
    if (login.token_generation !== result.claims.generation) throw new UnauthorizedError('token has been revoked');
    return this.principalOf(login, 'token', result.claims.jti);
  }

  /** For the refresh-token grant: checks the refresh token and the user, then revokes it (tokens rotate). */
  async redeemRefreshToken(token: string): Promise<Principal> {
    const result = await this.tokens.verify(token, 'refresh');
    if (!result.ok) throw new UnauthorizedError(result.reason.replace(/^token /, 'refresh token '));
    const login = await findLoginRecord(this.db, result.claims.username);
    if (!login || login.account_name !== result.claims.accountName) throw new UnauthorizedError('refresh token is not valid');
    const problem = this.stateProblem(login);
    if (problem) throw new UnauthorizedError(problem);
    if (login.token_generation !== result.claims.generation) throw new UnauthorizedError('refresh token has been revoked');
    await this.tokens.revoke(result.claims);
    return this.principalOf(login, 'token');
  }
}
