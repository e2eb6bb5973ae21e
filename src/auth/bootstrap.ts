/** First start: the admin account with its administrator user. */
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { ADMIN_ACCOUNT, createAccount, findAccount } from './accounts.js';
import type { PasswordHasher } from './passwords.js';
import { createUser, findUserAnyAccount } from './users.js';

export const ADMIN_USERNAME = 'admin';

export async function bootstrapAdmin(
  db: Db,
  hasher: PasswordHasher,
  configuredPassword: string | null,
): Promise<{ created: boolean; username: string; generatedPassword?: string }> {
  if (!(await findAccount(db, ADMIN_ACCOUNT))) {
    try {
      await createAccount(db, { name: ADMIN_ACCOUNT, type: 'admin' });
    } catch {
      // another node created it first
    }
  }
  if (await findUserAnyAccount(db, ADMIN_USERNAME)) return { created: false, username: ADMIN_USERNAME };
  const generatedPassword = configuredPassword ? undefined : randomBytes(18).toString('base64url');
  try {
    await createUser(db, hasher, ADMIN_ACCOUNT, { username: ADMIN_USERNAME, password: configuredPassword ?? generatedPassword! });
  } catch {
    return { created: false, username: ADMIN_USERNAME };
  }
  return { created: true, username: ADMIN_USERNAME, generatedPassword };
}
