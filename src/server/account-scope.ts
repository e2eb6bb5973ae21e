/**
 * Which account a request acts on: the one it names (an account parameter), else the x-service-account header,
 * else the caller's own. Shared by the REST pipeline and the GraphQL endpoint so both apply the same rules.
 */
import { findAccount, type AccountRecord } from '../auth/accounts.js';
import type { Principal } from '../auth/principal.js';
import { denied, hasAnyRole } from '../auth/rbac.js';
import type { Db } from '../db/index.js';
import { ForbiddenError, NotFoundError } from '../errors.js';

export const SERVICE_ACCOUNT_HEADER = 'x-service-account';

/** Resolves the target account and checks the caller may act there at all (the action itself is checked next). */
export async function resolveTargetAccount(
  db: Db,
  principal: Principal,
  action: string,
  requested: { named?: string; headerAccount?: string },
): Promise<AccountRecord> {
  const fromHeader = !requested.named ? requested.headerAccount : undefined;
  const name = requested.named ?? fromHeader ?? principal.accountName;
  const account = name === principal.accountName ? principal.account : await findAccount(db, name);
  if (principal.isAdmin) {
    if (!account)
      throw new NotFoundError(
        fromHeader ? `account '${name}' named in ${SERVICE_ACCOUNT_HEADER} does not exist` : `account '${name}' does not exist`,
        { account_name: name },
      );
    return account;
  }
  if (name !== principal.accountName) {
    // Another account: a caller without a role there gets the same answer whether or not it exists,
    // so accounts cannot be enumerated; only role holders learn its state.
    if (!account || !(await hasAnyRole(db, principal.username, name))) throw denied(principal, action, name);
    if (account.state !== 'enabled') throw new ForbiddenError(`account '${name}' is ${account.state}`, { account_name: name });
  }
  if (!account) throw new NotFoundError(`account '${name}' does not exist`, { account_name: name });
  return account;
}
