/**
 * The ReportContext a stored query runs in: its owner's scope (the account's data, or every account's for a
 * global query), acting for the user who created it. Runs execute stored `query` operations only, so the
 * context refuses any authorization request.
 */
import { getAccount } from '../../auth/accounts.js';
import type { Principal } from '../../auth/principal.js';
import { ForbiddenError } from '../../errors.js';
import type { Services } from '../../service.js';
import type { ReportContext } from '../graphql/context.js';
import type { ScheduledQueryRecord } from './store.js';

export async function ownerContext(services: Services, query: ScheduledQueryRecord): Promise<ReportContext> {
  const account = await getAccount(services.db, query.accountName);
  const principal: Principal = {
    username: query.createdBy,
    accountName: account.name,
    accountType: account.type,
    // No credential is presented: the service acts for the creator, as services call each other with tokens.
    method: 'token',
    isAdmin: account.type === 'admin',
    account,
    // Matches no user's generation: a token issued for this synthetic principal would never verify.
    tokenGeneration: -1,
  };
  return {
    services,
    log: services.log.child({ component: 'scheduled-queries', query: query.uuid }),
    principal,
    accountName: account.name,
    scope: query.scope === 'global' ? { kind: 'global' } : { kind: 'account', accountName: account.name },
    authorize: async (action) => {
      throw new ForbiddenError(`a scheduled query run only reads reports; ${action} is not allowed`);
    },
    memo: new Map(),
  };
}
