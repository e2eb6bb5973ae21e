import type { AccountRecord } from './accounts.js';

export type AuthMethod = 'password' | 'api_key' | 'token';

/** Who is calling, as established by authentication. */
export interface Principal {
  username: string;
  accountName: string;
  accountType: 'admin' | 'user' | 'service';
  method: AuthMethod;
  /** Users of the admin account may do everything everywhere. */
  isAdmin: boolean;
  /** The caller's own account as read during authentication (saves a lookup when it is the target). */
  account: AccountRecord;
  /** For bearer tokens: the token id, so it can be revoked. */
  tokenId?: string;
  /** The user's token generation as read during authentication; tokens issued to this principal carry it. */
  tokenGeneration: number;
}

/** The fixed HTTP Basic username that marks the password as an API key. */
export const API_KEY_USERNAME = '_api_key';
