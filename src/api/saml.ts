/** Handlers of SAML single sign-on (RBAC tag): identity provider configurations, login and assertion consumer. */
import * as idps from '../auth/saml/idps.js';
import { metadataFetcher } from '../auth/saml/metadata.js';
import { SamlRefusedError, loginRedirectUrl, signIn, type SpKeys } from '../auth/saml/sso.js';
import {
  BROWSER_RELAY_STATE_PREFIX,
  bindBrowser,
  type BrowserLogin,
  checkedReturnTo,
  issueCode,
  newBrowserRelayState,
  refusedLocation,
  rememberBrowserLogin,
  takeBrowserLogin,
} from '../auth/sso/browser-login.js';
import { InvalidError } from '../errors.js';
import type { RequestContext } from '../server/context.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { groupMappingOperations } from './sso-group-mappings.js';
import type { components } from '../../generated/openapi-types.js';

type SamlOps =
  | 'list_idps'
  | 'add_idp'
  | 'get_idp'
  | 'update_idp'
  | 'delete_idp'
  | 'get_idp_user_groups'
  | 'add_idp_user_groups'
  | 'delete_idp_user_group'
  | 'saml_login'
  | 'saml_sso';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** Absent optional fields are left out rather than answered as null. */
function idpShape(r: idps.SamlIdpRecord): components['schemas']['RbacManagerSamlConfiguration'] {
  const shape: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(r)) if (value !== null) shape[key] = value;
  return shape as components['schemas']['RbacManagerSamlConfiguration'];
}

const idpGroupMappings = groupMappingOperations('saml', idps.getIdp);

/** A login of the web interface: Vigil makes the RelayState, and binds it to this browser by a cookie. */
async function startBrowserLogin(ctx: RequestContext, name: string, returnTo: string, spKeys: SpKeys | null) {
  const checked = checkedReturnTo(returnTo);
  const relayState = newBrowserRelayState();
  const location = await loginRedirectUrl(ctx.db, name, relayState, spKeys);
  const { acs_url } = await idps.getIdp(ctx.db, name);
  const binding = bindBrowser(ctx.cookieHeader, acs_url.startsWith('https:'));
  await rememberBrowserLogin(ctx.db, { key: relayState, protocol: 'saml', provider: name, browserHash: binding.browserHash, returnTo: checked });
  return { status: 302 as const, headers: { Location: location, 'Cache-Control': 'no-store', 'Set-Cookie': binding.setCookie } };
}

export const samlHandlers: HandlerGroup<SamlOps> = {
  async list_idps(ctx) {
    return { status: 200, body: await idps.listIdpNames(ctx.db) };
  },
  async add_idp(ctx, { body }) {
    return { status: 200, body: idpShape(await idps.createIdp(ctx.db, body, metadataFetcher(ctx.services.outbound.identity))) };
  },
  async get_idp(ctx, { params }) {
    const idp = idpShape(await idps.getIdp(ctx.db, params.name));
    const userGroups = (await idpGroupMappings.list(ctx.db, params.name)).map((m) => ({ user_group: m.user_group_name, added_on: m.mapped_on }));
    return { status: 200, body: { ...idp, user_groups: userGroups } };
  },
  async update_idp(ctx, { params, body }) {
    return { status: 200, body: idpShape(await idps.updateIdp(ctx.db, params.name, body, metadataFetcher(ctx.services.outbound.identity))) };
  },
  async delete_idp(ctx, { params }) {
    await idps.deleteIdp(ctx.db, params.name);
    return { status: 204 };
  },
  async get_idp_user_groups(ctx, { params }) {
    return { status: 200, body: await idpGroupMappings.list(ctx.db, params.name) };
  },
  async add_idp_user_groups(ctx, { params, body }) {
    return { status: 200, body: await idpGroupMappings.add(ctx.db, params.name, body.user_group_uuids ?? []) };
  },
  async delete_idp_user_group(ctx, { params, query }) {
    await idpGroupMappings.remove(ctx.db, params.name, query.user_group);
    return { status: 204 };
  },
  async saml_login(ctx, { params, query }) {
    const { spPrivateKeyPem, spCertificatePem } = ctx.services.config.saml;
    const spKeys = spPrivateKeyPem && spCertificatePem ? { privateKeyPem: spPrivateKeyPem, certificatePem: spCertificatePem } : null;
    if (query.return_to !== undefined) {
      if (query.RelayState !== undefined)
        throw new InvalidError('give return_to or RelayState, not both', { errors: [{ location: 'query.return_to', message: 'excludes RelayState' }] });
      return startBrowserLogin(ctx, params.idp_name, query.return_to, spKeys);
    }
    const location = await loginRedirectUrl(ctx.db, params.idp_name, query.RelayState, spKeys);
    return { status: 302, headers: { Location: location, 'Cache-Control': 'no-store' } };
  },
  async saml_sso(ctx, { params, body }) {
    let browser: BrowserLogin | null = null;
    try {
      // A login the web interface started: its browser binding is checked where the code is exchanged, since the
      // identity provider's cross-site POST carries no SameSite=Lax cookie.
      const ui = body.RelayState?.startsWith(BROWSER_RELAY_STATE_PREFIX) ?? false;
      browser = ui ? await takeBrowserLogin(ctx.db, body.RelayState!, 'saml', params.idp_name) : null;
      if (ui && !browser) throw new SamlRefusedError(params.idp_name, 'the login of the web interface is unknown, expired or already used');
      const result = await signIn(ctx.db, ctx.services.tokens, params.idp_name, body.SAMLResponse);
      ctx.log.info({ idp_name: params.idp_name, username: result.username, account: result.accountName, created: result.created }, 'SAML sign-in');
      if (browser) return { status: 303, headers: { Location: await issueCode(ctx.db, browser, result), 'Cache-Control': 'no-store' } };
      return { status: 200, body: { token: result.tokens.access_token, ...result.tokens }, headers: NO_STORE };
    } catch (err) {
      if (!(err instanceof SamlRefusedError)) throw err;
      ctx.log.warn({ idp_name: err.idpName, reason: err.reason }, 'SAML sign-in refused');
      // A login of the interface goes back to it with the reason (a 401 would only make the browser prompt for Basic).
      if (body.RelayState?.startsWith(BROWSER_RELAY_STATE_PREFIX))
        return { status: 303, headers: { Location: refusedLocation(browser?.returnTo ?? '/ui/', err.message), 'Cache-Control': 'no-store' } };
      throw err;
    }
  },
};
