/**
 * One passport strategy per authentication method, each a thin adapter from the Authorization header to
 * the Authenticator. A strategy that does not recognise the header fails without a message so the next can try.
 */
import type { Request } from 'express';
import { Passport } from 'passport';
import { Strategy } from 'passport-strategy';
import type { Authenticator } from '../auth/authenticate.js';
import { API_KEY_USERNAME, type Principal } from '../auth/principal.js';
import { UnauthorizedError } from '../errors.js';

interface BasicCredentials {
  username: string;
  password: string;
}

function parseBasic(header: string | undefined): BasicCredentials | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function parseBearer(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1] : null;
}

function clientOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

abstract class VigilStrategy extends Strategy {
  constructor(protected readonly auth: Authenticator) {
    super();
  }

  protected settle(attempt: Promise<Principal>): void {
    attempt.then(
      (principal) => this.success(principal),
      (err) => (err instanceof UnauthorizedError ? this.fail(err.message, 401) : this.error(err)),
    );
  }
}

class PasswordStrategy extends VigilStrategy {
  name = 'basic';
  authenticate(req: Request): void {
    const creds = parseBasic(req.headers.authorization);
    if (!creds || creds.username === API_KEY_USERNAME) return this.fail(undefined as unknown as string, 401);
    this.settle(this.auth.byPassword(creds.username, creds.password, clientOf(req)));
  }
}

class ApiKeyStrategy extends VigilStrategy {
  name = 'api-key';
  authenticate(req: Request): void {
    const creds = parseBasic(req.headers.authorization);
    if (!creds || creds.username !== API_KEY_USERNAME) return this.fail(undefined as unknown as string, 401);
    this.settle(this.auth.byApiKey(creds.password, clientOf(req)));
  }
}

class BearerStrategy extends VigilStrategy {
  name = 'bearer';
  authenticate(req: Request): void {
    const token = parseBearer(req.headers.authorization);
    if (!token) return this.fail(undefined as unknown as string, 401);
    this.settle(this.auth.byToken(token));
  }
}

const STRATEGIES = ['basic', 'api-key', 'bearer'];

/** Builds the composed authenticate step: resolves the Principal or rejects with an AppError. */
export function createAuthenticate(auth: Authenticator): (req: Request) => Promise<Principal> {
  const passport = new Passport();
  passport.use(new PasswordStrategy(auth));
  passport.use(new ApiKeyStrategy(auth));
  passport.use(new BearerStrategy(auth));
  return (req) =>
    new Promise((resolve, reject) => {
      const middleware = passport.authenticate(
        STRATEGIES,
        { session: false },
        (err: unknown, principal: Principal | false, challenges: unknown) => {
          if (err) return reject(err);
          if (principal) return resolve(principal);
          const reasons = (Array.isArray(challenges) ? challenges : [challenges]).filter((c): c is string => typeof c === 'string');
          reject(
            new UnauthorizedError(
              reasons[0] ??
                (req.headers.authorization
                  ? 'unsupported Authorization header; use Basic (user or _api_key) or Bearer'
                  : 'authentication required: send HTTP Basic credentials, an API key as _api_key, or a Bearer token'),
            ),
          );
        },
      );
      middleware(req, {} as never, reject);
    });
}
