/** Handlers of the Onetime tag: the one-time scan of an SBOM, nothing stored. */
import { statelessScan } from '../policy/stateless-scan.js';
import type { HandlerGroup } from '../server/handler-types.js';

export const onetimeHandlers: HandlerGroup<'stateless_scan'> = {
  async stateless_scan(ctx, { query, body }) {
    const result = await statelessScan(ctx.db, ctx.account.name, body, { tag: query.tag, policyId: query.policy_id });
    return { status: 200, body: result };
  },
};
