import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { AccountRecord } from '../auth/accounts.js';
import type { Principal } from '../auth/principal.js';
import type { Db } from '../db/index.js';
import type { Services } from '../service.js';

/** What a handler gets besides its inputs: the caller, the account it acts on, and the services. */
export class RequestContext {
  constructor(
    readonly services: Services,
    readonly log: Logger,
    readonly requestId: string,
    /** The client's address, for throttling. */
    readonly client: string,
    private readonly principal: Principal | null,
    private readonly targetAccount: AccountRecord | null,
    /** The raw request body, for operations that take a streamed upload; null otherwise. */
    readonly bodyStream: Readable | null = null,
    /** The request's Cookie header: only the single sign-on browser binding (src/auth/sso/browser-login.ts) reads it. */
    readonly cookieHeader: string | null = null,
  ) {}

  get db(): Db {
    return this.services.db;
  }

  /** The authenticated caller. Only public operations have none, and their handlers do not ask. */
  get caller(): Principal {
    if (!this.principal) throw new Error('caller requested in a public operation');
    return this.principal;
  }

  /** The account this request acts on, as resolved and authorized by the pipeline. */
  get account(): AccountRecord {
    if (!this.targetAccount) throw new Error('account requested in a public operation');
    return this.targetAccount;
  }
}
