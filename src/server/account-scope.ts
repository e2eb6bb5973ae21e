/**
 * Which account a request acts on: the one it names (an account parameter), else the account header, else the
 * caller's own. Shared by the REST pipeline and the GraphQL endpoint so both apply the same rules.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { findAccount, type AccountRecord } from '../auth/accounts.js';
import type { Principal } from '../auth/principal.js';
import { denied, hasAnyRole } from '../auth/rbac.js';
import type { Db } from '../db/index.js';
import { ForbiddenError, InvalidError, NotFoundError } from '../errors.js';

export const SERVICE_ACCOUNT_HEADER = 'x-service-account';
/** The established API's name of the same header, which its clients send. */
export const ANCHORE_ACCOUNT_HEADER = 'x-anchore-account';

/** The account a request names in a header, and the header that named it. */
export interface HeaderAccount {
  header: string;
  account: string;
}

/**
 * The account named by x-service-account or its alias x-anchore-account, if either is sent. A header sent empty is
 * refused rather than ignored (ignoring it would act on the caller's own account), and so are two that disagree.
 */
export function headerAccount(headers: IncomingHttpHeaders): HeaderAccount | undefined {
  const named: HeaderAccount[] = [];
  for (const header of [SERVICE_ACCOUNT_HEADER, ANCHORE_ACCOUNT_HEADER]) {
    const value = headers[header];
    if (value === undefined) continue;
    const account = (Array.isArray(value) ? value.join(', ') : value).trim();
    if (account === '') throw new InvalidError(`${header} is empty; name an account or leave the header out`, { errors: [{ location: `header.${header}`, message: 'is empty' }] });
    named.push({ header, account });
  }
  if (named.length === 2 && named[0].account !== named[1].account)
    throw new InvalidError(`${SERVICE_ACCOUNT_HEADER} and ${ANCHORE_ACCOUNT_HEADER} name different accounts ('${named[0].account}', '${named[1].account}'); send one, or the same account in both`, {
      errors: [{ location: `header.${ANCHORE_ACCOUNT_HEADER}`, message: `differs from ${SERVICE_ACCOUNT_HEADER}` }],
    });
  return named[0];
}

/** Resolves the target account and checks the caller may act there at all (the action itself is checked next). */
export async function resolveTargetAccount(
  db: Db,
  principal: Principal,
  action: string,
  requested: { named?: string; header?: HeaderAccount },
): Promise<AccountRecord> {
  const fromHeader = !requested.named ? requested.header : undefined;
  const name = requested.named ?? fromHeader?.account ?? principal.accountName;
  const account = name === principal.accountName ? principal.account : await findAccount(db, name);
  if (principal.isAdmin) {
    if (!account)
      throw new NotFoundError(
        fromHeader ? `account '${name}' named in ${fromHeader.header} does not exist` : `account '${name}' does not exist`,
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
