/**
 * SAML single sign-on: an identity provider is configured, read, replaced, a user signs in through it (with a
 * response from the samlify test IdP), and it is deleted.
 */
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { uniqueName } from '../../support/fixtures.js';
import { TestIdp } from '../../support/saml-idp.js';
import { as, defineArea, expectAnswer, expectStatus, ok } from '../harness.js';

const SP_ENTITY = 'https://vigil.test/contract';

interface State {
  url: string;
  idp: TestIdp;
  name: string;
  account: string;
}

const acsUrl = (s: State) => `${s.url}/v2/rbac-manager/saml/sso/${s.name}`;
const config = (s: State) => ({
  name: s.name,
  sp_entity_id: SP_ENTITY,
  acs_url: acsUrl(s),
  idp_metadata_xml: s.idp.metadata(),
  default_account: s.account,
  default_role: 'read-only',
});

export const ssoArea = defineArea<State>({
  name: 'sso',
  tools: ['openssl'],
  async setup(url) {
    const account = uniqueName('ct-sso');
    await ok(sdk.createAccount({ body: { name: account } }));
    return { url, idp: new TestIdp(), name: uniqueName('ct-idp'), account };
  },
  calls: {
    add_idp: (s) => ok(sdk.addIdp({ body: config(s) })),
    list_idps: async (s) => {
      const names = await ok(sdk.listIdps());
      if (!names.includes(s.name)) throw new Error('the identity provider is not listed');
    },
    get_idp: async (s) => {
      await ok(sdk.getIdp({ path: { name: s.name } }));
      await expectAnswer(404, sdk.getIdp({ path: { name: 'ct-no-such-idp' } }));
    },
    update_idp: (s) => ok(sdk.updateIdp({ path: { name: s.name }, body: { ...config(s), allow_api_keys: true } })),
    saml_login: expectStatus(302, 'an SP-initiated login answers with a redirect to the identity provider', async (s) => {
      const answer = await sdk.samlLogin({ path: { idp_name: s.name }, client: as({ basic: ['nobody', 'unused'] }), redirect: 'manual' } as never);
      const { response } = answer as { response?: Response };
      if (response?.status !== 302 || !response.headers.get('location')?.startsWith(s.idp.ssoUrl))
        throw new Error(`expected a redirect to the identity provider, got ${response?.status}`);
    }),
    saml_sso: async (s) => {
      const SAMLResponse = await s.idp.loginResponse(SP_ENTITY, acsUrl(s), { nameId: uniqueName('ct-sso-user') });
      const data = await ok(sdk.samlSso({ path: { idp_name: s.name }, body: { SAMLResponse } }));
      await ok(sdk.getUser({ client: as({ bearer: data.token }) }));
      await expectAnswer(401, sdk.samlSso({ path: { idp_name: s.name }, body: { SAMLResponse } }));
    },
    delete_idp: (s) => ok(sdk.deleteIdp({ path: { name: s.name } })),
  },
});
