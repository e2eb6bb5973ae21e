/**
 * What the signed-in user may do in the account acted in, so the administration pages offer only that. Users of
 * the admin account may do everything; anyone else holds the actions of their roles in that account (the server
 * decides in the end: every refusal it answers is still shown).
 */
import { createContext, useContext } from 'react';
import type { Api } from '../../api/client';
import { data } from '../../api/client';
import { ApiError } from '../../api/errors';
import type { Session } from '../../session';

export interface Permissions {
  isAdmin: boolean;
  /** The names of the user's roles in the account acted in. */
  roles: string[];
  can(action: string): boolean;
}

export async function loadPermissions(api: Api, session: Session): Promise<Permissions> {
  // Asked in the user's own account, whichever account is selected.
  const own = { headers: { 'x-anchore-account': session.userAccount } };
  const [account, myRoles] = await Promise.all([
    data(api.rest.GET('/account', own)).catch((error: unknown) => {
      // Without a role in their own account a user may not read it, and is then no administrator either.
      if (error instanceof ApiError && error.status === 403) return null;
      throw error;
    }),
    data(api.rest.GET('/rbac-manager/my-roles', own)),
  ]);
  const isAdmin = account?.type === 'admin';
  const here = myRoles.filter((r) => r.domain_name === session.account);
  const actions = new Set(here.flatMap((r) => r.roles.permissions.map((p) => p.action)));
  return {
    isAdmin,
    roles: here.map((r) => r.roles.name).sort(),
    can: (action) => isAdmin || actions.has(action) || actions.has('*'),
  };
}

export const PermissionsContext = createContext<Permissions | null>(null);

export function usePermissions(): Permissions {
  const permissions = useContext(PermissionsContext);
  if (!permissions) throw new Error('usePermissions outside the administration page');
  return permissions;
}
