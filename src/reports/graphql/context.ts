/** What every resolver gets: the services, the caller, the scope it reads, and per-request loaders. */
import type { Logger } from 'pino';
import type { Principal } from '../../auth/principal.js';
import type { Services } from '../../service.js';
import type { ReportScope } from '../scope.js';

export type ReportContext = {
  services: Services;
  log: Logger;
  principal: Principal;
  /** The account endpoint's account (the caller's or x-service-account's); on the global endpoint the caller's own. */
  accountName: string;
  scope: ReportScope;
  /** Role check for an action in `accountName` (mutations); throws ForbiddenError. */
  authorize(action: string): Promise<void>;
  /** Per-request memo, for batch loaders. */
  memo: Map<string, unknown>;
};
