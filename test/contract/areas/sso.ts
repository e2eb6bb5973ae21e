/**
 * SAML single sign-on: an identity provider is configured, read, replaced, a user signs in through it (with a
 * response from the samlify test IdP), a user group is mapped to it and unmapped, and it is deleted.
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
  groupUuid: string;
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
    const group = await ok(sdk.createUserGroup({ body: { name: uniqueName('ct-sso-group') } }));
    return { url, idp: new TestIdp(), name: uniqueName('ct-idp'), account, groupUuid: group.group_uuid };
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
    add_idp_user_groups: async (s) => {
      const mapped = await ok(sdk.addIdpUserGroups({ path: { name: s.name }, body: { user_group_uuids: [s.groupUuid] } }));
      if (!mapped.some((m) => m.user_group_uuid === s.groupUuid)) throw new Error('the group is not mapped');
      await expectAnswer(404, sdk.addIdpUserGroups({ path: { name: s.name }, body: { user_group_uuids: ['00000000-0000-4000-8000-000000000000'] } }));
    },
    get_idp_user_groups: async (s) => {
      const mapped = await ok(sdk.getIdpUserGroups({ path: { name: s.name } }));
      if (mapped.length !== 1 || mapped[0].user_group_uuid !== s.groupUuid) throw new Error('the mapping is not listed');
    },
    delete_idp_user_group: async (s) => {
      await ok(sdk.deleteIdpUserGroup({ path: { name: s.name }, query: { user_group: s.groupUuid } }));
      await expectAnswer(404, sdk.deleteIdpUserGroup({ path: { name: s.name }, query: { user_group: s.groupUuid } }));
    },
    delete_idp: (s) => ok(sdk.deleteIdp({ path: { name: s.name } })),
  },
});
