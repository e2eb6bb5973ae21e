/** Handlers of OpenID Connect single sign-on (RBAC tag, Vigil extension): provider configurations, browser login, device grant. */
import { abandonLogin, completeLogin, loginRedirectUrl, newState } from '../auth/oidc/browser-login.js';
import { pollDeviceGrant, startDeviceGrant } from '../auth/oidc/device-grant.js';
import * as providers from '../auth/oidc/providers.js';
import { OidcRefusedError, type OidcContext, type OidcSignIn } from '../auth/oidc/sign-in.js';
import type { RequestContext } from '../server/context.js';
import { bindBrowser, checkedReturnTo, fromSameBrowser, issueCode, refusedLocation, rememberBrowserLogin, takeBrowserLogin } from '../auth/sso/browser-login.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { groupMappingOperations } from './sso-group-mappings.js';
import type { components } from '../../generated/openapi-types.js';

type OidcOps =
  | 'list_oidc_providers'
  | 'add_oidc_provider'
  | 'get_oidc_provider'
  | 'update_oidc_provider'
  | 'delete_oidc_provider'
  | 'get_oidc_provider_user_groups'
  | 'add_oidc_provider_user_groups'
  | 'delete_oidc_provider_user_group'
  | 'oidc_login'
  | 'oidc_callback'
  | 'oidc_device_start'
  | 'oidc_device_token';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const providerGroupMappings = groupMappingOperations('oidc', providers.getProvider);

function oidc(ctx: RequestContext): OidcContext {
  return { db: ctx.db, rp: ctx.services.oidc, box: ctx.services.secretBox, tokens: ctx.services.tokens };
}

/** The configuration as answered: never the secret; absent optional fields left out rather than null. */
function providerShape(r: providers.OidcProviderRecord): components['schemas']['OidcProvider'] {
  const { discovery, client_secret_sealed, scopes, ...rest } = r;
  const shape: Record<string, unknown> = { client_secret_set: client_secret_sealed !== null, scopes: scopes.split(' ') };
  for (const [key, value] of Object.entries(rest)) if (value !== null) shape[key] = value;
  const device = (JSON.parse(discovery) as { device_authorization_endpoint?: string }).device_authorization_endpoint;
  if (device) shape.device_authorization_endpoint = device;
  return shape as components['schemas']['OidcProvider'];
}

function logRefusal(ctx: RequestContext, flow: string, err: unknown): void {
  if (err instanceof OidcRefusedError) ctx.log.warn({ provider: err.providerName, flow, reason: err.reason }, 'OpenID Connect sign-in refused');
}

/** The attempt's result; a refusal is logged with its reason on its way to the error answer. */
async function loggingRefusals<T>(ctx: RequestContext, flow: string, attempt: Promise<T>): Promise<T> {
  try {
    return await attempt;
  } catch (err) {
    logRefusal(ctx, flow, err);
    throw err;
  }
}

/** The sign-in, logged. */
async function loggedSignIn(ctx: RequestContext, provider: string, flow: string, attempt: Promise<OidcSignIn>): Promise<OidcSignIn> {
  const result = await loggingRefusals(ctx, flow, attempt);
  ctx.log.info({ provider, flow, username: result.username, account: result.accountName, created: result.created }, 'OpenID Connect sign-in');
  return result;
}

/** Logs a sign-in and answers the Vigil token. */
async function signedIn(ctx: RequestContext, provider: string, flow: string, attempt: Promise<OidcSignIn>) {
  const result = await loggedSignIn(ctx, provider, flow, attempt);
  return { status: 200 as const, body: { token: result.tokens.access_token, ...result.tokens }, headers: NO_STORE };
}

/** A login of the web interface: bound to this browser by a cookie, remembered beside the state. */
async function startBrowserLogin(ctx: RequestContext, name: string, returnTo: string) {
  const checked = checkedReturnTo(returnTo);
  const state = newState();
  const location = await loggingRefusals(ctx, 'authorization_code', loginRedirectUrl(oidc(ctx), name, state));
  const { redirect_uri } = await providers.getProvider(ctx.db, name);
  const binding = bindBrowser(ctx.cookieHeader, redirect_uri.startsWith('https:'));
  await rememberBrowserLogin(ctx.db, { key: state, protocol: 'oidc', provider: name, browserHash: binding.browserHash, returnTo: checked });
  return { status: 302 as const, headers: { Location: location, 'Cache-Control': 'no-store', 'Set-Cookie': binding.setCookie } };
}

export const oidcHandlers: HandlerGroup<OidcOps> = {
  async list_oidc_providers(ctx) {
    return { status: 200, body: await providers.listProviderNames(ctx.db) };
  },
  async add_oidc_provider(ctx, { body }) {
    return { status: 200, body: providerShape(await providers.createProvider(ctx.db, ctx.services.oidc, ctx.services.secretBox, body)) };
  },
  async get_oidc_provider(ctx, { params }) {
    return { status: 200, body: providerShape(await providers.getProvider(ctx.db, params.name)) };
  },
  async update_oidc_provider(ctx, { params, body }) {
    return { status: 200, body: providerShape(await providers.updateProvider(ctx.db, ctx.services.oidc, ctx.services.secretBox, params.name, body)) };
  },
  async delete_oidc_provider(ctx, { params }) {
    await providers.deleteProvider(ctx.db, params.name);
    return { status: 204 };
  },
  async get_oidc_provider_user_groups(ctx, { params }) {
    return { status: 200, body: await providerGroupMappings.list(ctx.db, params.name) };
  },
  async add_oidc_provider_user_groups(ctx, { params, body }) {
    return { status: 200, body: await providerGroupMappings.add(ctx.db, params.name, body.user_group_uuids ?? []) };
  },
  async delete_oidc_provider_user_group(ctx, { params, query }) {
    await providerGroupMappings.remove(ctx.db, params.name, query.user_group);
    return { status: 204 };
  },
  async oidc_login(ctx, { params, query }) {
    if (query.return_to !== undefined) return startBrowserLogin(ctx, params.provider_name, query.return_to);
    const location = await loggingRefusals(ctx, 'authorization_code', loginRedirectUrl(oidc(ctx), params.provider_name));
    return { status: 302, headers: { Location: location, 'Cache-Control': 'no-store' } };
  },
  async oidc_callback(ctx, { params, query }) {
    const name = params.provider_name;
    const browser = query.state ? await takeBrowserLogin(ctx.db, query.state, 'oidc', name) : null;
    if (!browser) return signedIn(ctx, name, 'authorization_code', completeLogin(oidc(ctx), name, query));
    let location: string;
    try {
      // Login CSRF: a login the web interface started completes only in the browser that started it.
      if (!fromSameBrowser(browser, ctx.cookieHeader)) {
        await abandonLogin(oidc(ctx), name, query.state!);
        const refused = new OidcRefusedError(name, 'the login was started in another browser');
        logRefusal(ctx, 'authorization_code', refused);
        throw refused;
      }
      const result = await loggedSignIn(ctx, name, 'authorization_code', completeLogin(oidc(ctx), name, query));
      location = await issueCode(ctx.db, browser, result);
    } catch (err) {
      // Logged where it was refused; the interface shows the reason.
      if (!(err instanceof OidcRefusedError)) throw err;
      location = refusedLocation(browser.returnTo, err.message);
    }
    return { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } };
  },
  async oidc_device_start(ctx, { params }) {
    const started = await loggingRefusals(ctx, 'device_code', startDeviceGrant(oidc(ctx), params.provider_name));
    return { status: 200, body: started, headers: { 'Cache-Control': 'no-store' } };
  },
  async oidc_device_token(ctx, { params, body }) {
    return signedIn(ctx, params.provider_name, 'device_code', pollDeviceGrant(oidc(ctx), params.provider_name, body.handle));
  },
};
