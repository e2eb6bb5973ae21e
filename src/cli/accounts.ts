/** The account an administration command acts on when its path names one: --account / VIGIL_ACCOUNT, else the caller's own. */
import type { Api } from './session.js';

export async function targetAccount({ client, call, connection }: Api): Promise<string> {
  if (connection.account) return connection.account;
  return (await call(client.GET('/account'))).name;
}
