/**
 * Administration: accounts and their users (with role bindings), roles, the signed-in user's API keys, registry
 * credentials, feeds and the live services. Each sub-page has its own route under /admin/, and only the sub-pages
 * the signed-in user may use in the account acted in are offered.
 */
import { Group, Loader, Stack, Title } from '@mantine/core';
import { Navigate, NavLink as RouterLink, Route, Routes } from 'react-router-dom';
import { useApi } from '../../components/SessionProvider';
import { AccountsPage } from './AccountsPage';
import { AccountUsersPage } from './AccountUsersPage';
import { ApiKeysPage } from './ApiKeysPage';
import { FeedsPage } from './FeedsPage';
import { loadPermissions, type Permissions, PermissionsContext } from './permissions';
import { RegistriesPage } from './RegistriesPage';
import { RolesPage } from './RolesPage';
import { ServicesPage } from './ServicesPage';
import { ErrorAlert, useLoad } from './shared';

interface SubPage {
  path: string;
  label: string;
  allowed(p: Permissions): boolean;
}

// Absolute: in a splat route (admin/*) a relative link resolves against the whole current path.
const BASE = '/admin';

function subPages(account: string): SubPage[] {
  return [
    { path: `${BASE}/accounts`, label: 'Accounts', allowed: (p) => p.isAdmin },
    // Administrators reach every account's users from Accounts; others manage their account's users here.
    { path: `${BASE}/accounts/${encodeURIComponent(account)}`, label: 'Users', allowed: (p) => !p.isAdmin && p.can('listUsers') },
    { path: `${BASE}/roles`, label: 'Roles', allowed: (p) => p.can('listRoles') },
    { path: `${BASE}/api-keys`, label: 'API keys', allowed: (p) => p.can('selfListApiKeys') },
    { path: `${BASE}/registries`, label: 'Registries', allowed: (p) => p.can('listRegistries') },
    { path: `${BASE}/feeds`, label: 'Feeds', allowed: () => true },
    { path: `${BASE}/services`, label: 'Services', allowed: (p) => p.can('listServices') },
  ];
}

export function AdminPage() {
  const { api, session } = useApi();
  const permissions = useLoad(() => loadPermissions(api, session), [api, session.account, session.authorization]);
  const p = permissions.data;
  const offered = p ? subPages(session.account).filter((s) => s.allowed(p)) : [];

  return (
    <Stack>
      <Title order={1}>Administration</Title>
      <ErrorAlert title="Could not read what you may do" error={permissions.error} />
      {!p && permissions.loading && <Loader aria-label="Loading" size="sm" />}
      {p && (
        <PermissionsContext.Provider value={p}>
          <Group component="nav" aria-label="Administration" gap="xs">
            {offered.map((s) => (
              <RouterLink key={s.path} to={s.path} className="vigil-subnav-link">
                {s.label}
              </RouterLink>
            ))}
          </Group>
          <Routes>
            <Route index element={<Navigate to={offered[0]?.path ?? `${BASE}/feeds`} replace />} />
            <Route path="accounts" element={<AccountsPage />} />
            <Route path="accounts/:account" element={<AccountUsersPage />} />
            <Route path="roles" element={<RolesPage />} />
            <Route path="api-keys" element={<ApiKeysPage />} />
            <Route path="registries" element={<RegistriesPage />} />
            <Route path="feeds" element={<FeedsPage />} />
            <Route path="services" element={<ServicesPage />} />
            <Route path="*" element={<Title order={2}>No such administration page</Title>} />
          </Routes>
        </PermissionsContext.Provider>
      )}
    </Stack>
  );
}
