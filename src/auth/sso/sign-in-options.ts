/**
 * The single sign-on providers a user can sign in with, for the web interface's sign-in page (public): enabled
 * SAML identity providers that have a single sign-on URL, and enabled OpenID Connect providers. Names and login
 * paths only; the names are in every login URL anyway.
 */
import type { Db } from '../../db/index.js';
import { findProvider, listProviderNames } from '../oidc/providers.js';
import { findIdp, listIdpNames, resolveIdp } from '../saml/idps.js';
import type { components } from '../../../generated/openapi-types.js';

type SignInOption = components['schemas']['SsoSignInOption'];

async function samlOptions(db: Db): Promise<SignInOption[]> {
  const options: SignInOption[] = [];
  for (const name of await listIdpNames(db)) {
    const record = await findIdp(db, name);
    if (!record?.enabled) continue;
    // A configuration stored before a check was added may no longer resolve; it offers no login then.
    const ssoUrl = await resolveIdp(record).then((idp) => idp.ssoUrl, () => null);
    if (ssoUrl) options.push({ name, protocol: 'saml', login_path: `/v2/rbac-manager/saml/login/${encodeURIComponent(name)}` });
  }
  return options;
}

async function oidcOptions(db: Db): Promise<SignInOption[]> {
  const options: SignInOption[] = [];
  for (const name of await listProviderNames(db)) {
    if ((await findProvider(db, name))?.enabled) options.push({ name, protocol: 'oidc', login_path: `/v2/rbac-manager/oidc/login/${encodeURIComponent(name)}` });
  }
  return options;
}

export async function signInOptions(db: Db): Promise<SignInOption[]> {
  const options = [...(await samlOptions(db)), ...(await oidcOptions(db))];
  return options.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
