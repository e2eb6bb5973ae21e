/**
 * An OpenID Connect provider for tests: the `oidc-provider` package on loopback, with one confidential client for
 * Vigil (authorization code with PKCE, device grant). Who signs in is set by the test (`nextUser`), the login
 * interaction completes at once, and consent is implied, so a login is a chain of redirects a test follows.
 *
 * Tests that need a bad ID token (another audience, expired, wrong nonce, an unknown key) have the provider's own
 * token answer rewritten on its way out (`rewriteIdToken`): the token is re-signed with the provider's key (or
 * with a key it does not publish), so only the one property under test is wrong.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';

export const CLIENT_ID = 'vigil';
export const CLIENT_SECRET = 'vigil-test-client-secret';

/** The few parts of oidc-provider used here (the package ships no type declarations). */
interface OidcModel {
  accountId?: string;
  grantId?: string;
  error?: string;
  errorDescription?: string;
  authTime?: number;
  clientId: string;
  scope?: string;
  /** The parameters of the device authorization request. */
  params: { scope: string };
  save(): Promise<string>;
}
interface OidcGrant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
interface OidcProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: Record<string, unknown>): Promise<void>;
  DeviceCode: { findByUserCode(code: string): Promise<OidcModel | undefined> };
  Grant: new (init: { accountId: string; clientId: string }) => OidcGrant;
}
type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => OidcProviderInstance;

/**
 * Runs `action` without two oidc-provider warnings that do not apply to a test peer: Node.js older than 22 (the
 * parts these tests use work on 20) and the in-memory store (a test provider keeps nothing across restarts).
 */
async function withoutTestPeerWarnings<T>(action: () => T | Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!/Unsupported runtime|development-only in-memory adapter/.test(String(args[0]))) warn(...args);
  };
  try {
    return await action();
  } finally {
    console.warn = warn;
  }
}

async function loadProviderClass(): Promise<ProviderClass> {
  const specifier: string = 'oidc-provider';
  return withoutTestPeerWarnings(async () => ((await import(specifier)) as { default: ProviderClass }).default);
}

interface SigningKey {
  privateJwk: JWK;
  kid: string;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' }, kid };
}

/** Claims of a test user, as the ID token carries them. */
export type UserClaims = Record<string, unknown>;

export class TestOidcProvider {
  /** The account the next login interaction signs in. */
  nextUser = '';
  /** Rewrites the ID token of token answers, when set (one answer or all, as the test decides). */
  rewriteIdToken: ((claims: JWTPayload) => JWTPayload) | null = null;
  /** Signs rewritten tokens with a key the provider does not publish. */
  signWithUnknownKey = false;
  readonly users = new Map<string, UserClaims>();
  private provider!: OidcProviderInstance;
  private handler!: (req: IncomingMessage, res: ServerResponse) => void;
  private keys: SigningKey[] = [];
  private unknownKey!: SigningKey;
  private keyCount = 0;

  private constructor(
    private readonly Provider: ProviderClass,
    private readonly server: Server,
    readonly issuer: string,
    private readonly redirectUris: string[],
  ) {}

  static async start(redirectUris: string[]): Promise<TestOidcProvider> {
    const Provider = await loadProviderClass();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const idp = new TestOidcProvider(Provider, server, `http://127.0.0.1:${port}`, redirectUris);
    idp.unknownKey = await newKey('not-published');
    await idp.rotateKeys();
    server.on('request', (req, res) => void idp.handle(req, res));
    return idp;
  }

  /** A new signing key, published first (so it signs); the earlier keys stay published. */
  async rotateKeys(): Promise<string> {
    const key = await newKey(`key-${++this.keyCount}`);
    this.keys = [key, ...this.keys];
    // Its configuration is fixed at construction; the in-memory store of grants and codes is shared by instances.
    this.provider = await withoutTestPeerWarnings(() => new this.Provider(this.issuer, this.configuration()));
    this.handler = this.provider.callback();
    return key.kid;
  }

  get currentKid(): string {
    return this.keys[0].kid;
  }

  private configuration(): Record<string, unknown> {
    return {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: this.redirectUris,
          grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      jwks: { keys: this.keys.map((k) => k.privateJwk) },
      cookies: { keys: ['oidc-test-cookie-key'] },
      findAccount: async (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: async () => ({ sub: id, preferred_username: id, ...this.users.get(id) }),
      }),
      claims: { openid: ['sub'], profile: ['preferred_username'], vigil: ['vigil_account', 'vigil_role', 'groups'] },
      scopes: ['openid', 'profile', 'vigil'],
      // Claims in the ID token itself, which is what Vigil reads.
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false }, deviceFlow: { enabled: true } },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      // Consent is implied: every login gets a grant of the scopes it asks for.
      loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId: string }; params: { scope: string } } }) => {
        const grant = new this.provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
        grant.addOIDCScope(ctx.oidc.params.scope);
        await grant.save();
        return grant;
      },
      pkce: { required: () => true },
      // Lifetimes in seconds, set so the provider does not note its defaults.
      ttl: { AccessToken: 3600, AuthorizationCode: 60, DeviceCode: 600, Grant: 3600, IdToken: 3600, Interaction: 600, Session: 3600 },
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (req.url?.startsWith('/interaction/')) {
        await this.provider.interactionFinished(req, res, { login: { accountId: this.nextUser } }, { mergeWithLastSubmission: false });
        return;
      }
      if (req.method === 'POST' && req.url === '/token' && this.rewriteIdToken) this.rewriteAnswer(res, this.rewriteIdToken);
      this.handler(req, res);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  }

  /** Buffers the token answer and replaces its id_token with a rewritten, re-signed one. */
  private rewriteAnswer(res: ServerResponse, rewrite: (claims: JWTPayload) => JWTPayload): void {
    const chunks: Buffer[] = [];
    const end = res.end.bind(res);
    res.write = ((chunk: string | Buffer) => {
      chunks.push(Buffer.from(chunk));
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: string | Buffer | (() => void)) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
      void (async () => {
        const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id_token?: string };
        if (answer.id_token) answer.id_token = await this.sign(rewrite(decodeJwt(answer.id_token)));
        const body = JSON.stringify(answer);
        res.setHeader('content-length', Buffer.byteLength(body));
        end(body);
      })();
      return res;
    }) as typeof res.end;
  }

  private async sign(claims: JWTPayload): Promise<string> {
    const key = this.signWithUnknownKey ? this.unknownKey : this.keys[0];
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' }).sign(await importJWK(key.privateJwk, 'RS256'));
  }

  private async deviceCode(userCode: string): Promise<OidcModel> {
    // Stored as the verification page reads it: upper case, without the mask's separators.
    const code = await this.provider.DeviceCode.findByUserCode(userCode.replace(/[^A-Za-z0-9]/g, '').toUpperCase());
    if (!code) throw new Error(`no device code for user code ${userCode}`);
    return code;
  }

  /** Denies a device sign-in, as the user would by aborting at the verification page. */
  async denyDevice(userCode: string): Promise<void> {
    const code = await this.deviceCode(userCode);
    code.error = 'access_denied';
    code.errorDescription = 'End-User aborted interaction';
    await code.save();
  }

  /** Approves a device sign-in for `username`, as the user would at the verification page. */
  async approveDevice(userCode: string, username: string): Promise<void> {
    const code = await this.deviceCode(userCode);
    const grant = new this.provider.Grant({ accountId: username, clientId: code.clientId });
    grant.addOIDCScope(code.params.scope);
    code.scope = code.params.scope;
    code.grantId = await grant.save();
    code.accountId = username;
    code.authTime = Math.floor(Date.now() / 1000);
    await code.save();
  }

  /**
   * Plays the browser at the provider: from the authorization URL Vigil redirected to, follows the provider's
   * redirects (keeping its cookies) signing `username` in, until the provider sends the browser back to
   * `vigilOrigin`; answers that callback's path and query, not followed.
   */
  async browseToCallback(authorizationUrl: string, vigilOrigin: string, username: string): Promise<string> {
    this.nextUser = username;
    const cookies = new Map<string, string>();
    let location = new URL(authorizationUrl);
    for (let hop = 0; hop < 10; hop++) {
      if (location.origin === vigilOrigin) return `${location.pathname}${location.search}`;
      const res = await fetch(location, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const cookie of res.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      await res.arrayBuffer();
      if (res.status !== 302 && res.status !== 303) throw new Error(`${location} answered ${res.status}`);
      location = new URL(res.headers.get('location')!, location);
    }
    throw new Error('the provider never sent the browser back');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
