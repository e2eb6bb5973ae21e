/**
 * OpenID Connect single sign-on (a Vigil extension): a provider (oidc-provider on loopback) is configured, read,
 * replaced; a user signs in through the browser flow, another through the web interface's flow (its code exchanged)
 * and another through the device grant; a user group is mapped and unmapped; the provider is deleted.
 */
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { uniqueName } from '../../support/fixtures.js';
import { CLIENT_ID, CLIENT_SECRET, TestOidcProvider } from '../../support/oidc-provider.js';
import { as, defineArea, expectAnswer, expectStatus, ok } from '../harness.js';

interface State {
  url: string;
  idp: TestOidcProvider;
  name: string;
  account: string;
  groupUuid: string;
  deviceUser: string;
  userCode: string;
  handle: string;
}

const NAME = 'ct-oidc';
const callbackUrl = (url: string) => `${url}/v2/rbac-manager/oidc/callback/${NAME}`;
const config = (s: State) => ({
  name: s.name,
  issuer: s.idp.issuer,
  client_id: CLIENT_ID,
  client_secret: CLIENT_SECRET,
  redirect_uri: callbackUrl(s.url),
  scopes: ['openid', 'profile'],
  default_account: s.account,
  default_role: 'read-only',
});

/** The redirect an SP-initiated login answers: its Location, through the generated client without following it. */
async function loginLocation(s: State): Promise<string> {
  const answer = await sdk.oidcLogin({ path: { provider_name: s.name }, client: as({ basic: ['nobody', 'unused'] }), redirect: 'manual' } as never);
  const { response } = answer as { response?: Response };
  const location = response?.headers.get('location');
  if (response?.status !== 302 || !location?.startsWith(s.idp.issuer)) throw new Error(`expected a redirect to the provider, got ${response?.status}`);
  return location;
}

export const oidcArea = defineArea<State>({
  name: 'oidc',
  env: () => ({ VIGIL_OIDC_JWKS_COOLDOWN_SECONDS: '0' }),
  async setup(url) {
    const account = uniqueName('ct-oidc');
    await ok(sdk.createAccount({ body: { name: account } }));
    const group = await ok(sdk.createUserGroup({ body: { name: uniqueName('ct-oidc-group') } }));
    const idp = await TestOidcProvider.start([callbackUrl(url)]);
    return { url, idp, name: NAME, account, groupUuid: group.group_uuid, deviceUser: uniqueName('ct-oidc-cli'), userCode: '', handle: '' };
  },
  async teardown(s) {
    await s.idp.close();
  },
  calls: {
    add_oidc_provider: (s) => ok(sdk.addOidcProvider({ body: config(s) })),
    list_oidc_providers: async (s) => {
      const names = await ok(sdk.listOidcProviders());
      if (!names.includes(s.name)) throw new Error('the provider is not listed');
    },
    get_oidc_provider: async (s) => {
      const provider = await ok(sdk.getOidcProvider({ path: { name: s.name } }));
      if ('client_secret' in provider) throw new Error('the client secret was answered');
      await expectAnswer(404, sdk.getOidcProvider({ path: { name: 'ct-no-such-provider' } }));
    },
    update_oidc_provider: (s) => ok(sdk.updateOidcProvider({ path: { name: s.name }, body: { ...config(s), allow_api_keys: true } })),
    oidc_login: expectStatus(302, 'a browser login answers with a redirect to the provider', async (s) => {
      await loginLocation(s);
      return 302;
    }),
    oidc_callback: async (s) => {
      const back = new URL(await s.idp.browseToCallback(await loginLocation(s), s.url, uniqueName('ct-oidc-user')), s.url);
      const query = Object.fromEntries(back.searchParams) as { code: string; state: string; iss?: string };
      const token = await ok(sdk.oidcCallback({ path: { provider_name: s.name }, query }));
      await ok(sdk.getUser({ client: as({ bearer: token.token }) }));
      // The state was used: a second answer with it is refused.
      await expectAnswer(401, sdk.oidcCallback({ path: { provider_name: s.name }, query }));
    },
    list_sso_sign_in_options: async (s) => {
      const options = await ok(sdk.listSsoSignInOptions());
      if (!options.some((o) => o.name === s.name && o.protocol === 'oidc')) throw new Error('the provider is not offered for sign-in');
    },
    exchange_sso_code: async (s) => {
      // A login of the web interface: the browser's binding cookie from the start, the code from the callback's redirect.
      const start = await fetch(`${s.url}/v2/rbac-manager/oidc/login/${s.name}?return_to=/ui/`, { redirect: 'manual' });
      const cookie = start.headers.getSetCookie()[0].split(';')[0];
      const back = await s.idp.browseToCallback(start.headers.get('location')!, s.url, uniqueName('ct-oidc-ui'));
      const redirected = await fetch(`${s.url}${back}`, { redirect: 'manual', headers: { cookie } });
      const code = redirected.headers.get('location')?.split('#sso_code=')[1] ?? '';
      const token = await ok(sdk.exchangeSsoCode({ body: { code }, headers: { cookie } }));
      await ok(sdk.getUser({ client: as({ bearer: token.token }) }));
      // A code is exchanged once.
      await expectAnswer(401, sdk.exchangeSsoCode({ body: { code }, headers: { cookie } }));
    },
    oidc_device_start: async (s) => {
      const started = await ok(sdk.oidcDeviceStart({ path: { provider_name: s.name } }));
      s.userCode = started.user_code;
      s.handle = started.handle;
    },
    oidc_device_token: async (s) => {
      await s.idp.approveDevice(s.userCode, s.deviceUser);
      const token = await ok(sdk.oidcDeviceToken({ path: { provider_name: s.name }, body: { handle: s.handle } }));
      await ok(sdk.getUser({ client: as({ bearer: token.token }) }));
      // A handle answers its token once.
      await expectAnswer(404, sdk.oidcDeviceToken({ path: { provider_name: s.name }, body: { handle: s.handle } }));
    },
    add_oidc_provider_user_groups: async (s) => {
      const mapped = await ok(sdk.addOidcProviderUserGroups({ path: { name: s.name }, body: { user_group_uuids: [s.groupUuid] } }));
      if (!mapped.some((m) => m.user_group_uuid === s.groupUuid)) throw new Error('the group is not mapped');
      await expectAnswer(404, sdk.addOidcProviderUserGroups({ path: { name: s.name }, body: { user_group_uuids: ['00000000-0000-4000-8000-000000000000'] } }));
    },
    get_oidc_provider_user_groups: async (s) => {
      const mapped = await ok(sdk.getOidcProviderUserGroups({ path: { name: s.name } }));
      if (mapped.length !== 1 || mapped[0].user_group_uuid !== s.groupUuid) throw new Error('the mapping is not listed');
    },
    delete_oidc_provider_user_group: async (s) => {
      await ok(sdk.deleteOidcProviderUserGroup({ path: { name: s.name }, query: { user_group: s.groupUuid } }));
      await expectAnswer(404, sdk.deleteOidcProviderUserGroup({ path: { name: s.name }, query: { user_group: s.groupUuid } }));
    },
    delete_oidc_provider: (s) => ok(sdk.deleteOidcProvider({ path: { name: s.name } })),
  },
});
