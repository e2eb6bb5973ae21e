/** The frame around every page: the header (user, account switcher, sign-out), the main navigation, the content. */
import { AppShell, Button, Group, NavLink, Text } from '@mantine/core';
import { NavLink as RouterLink, useRoutes } from 'react-router-dom';
import { NAVIGATION, ROUTES } from '../routes';
import { AccountSwitcher } from './AccountSwitcher';
import { useApi, useSession } from './SessionProvider';

export function AppShellLayout() {
  const { session } = useApi();
  const { signOut } = useSession();
  const page = useRoutes(ROUTES);
  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 220, breakpoint: 'sm' }} padding="lg">
      <a href="#content" className="vigil-skip-link">
        Skip to content
      </a>
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between">
          <Text fw={700} size="lg">
            Vigil
          </Text>
          <Group gap="md">
            <AccountSwitcher />
            <Text size="sm" aria-label="Signed in as">
              {session.method === 'api_key' ? `${session.username} (API key)` : session.username}
            </Text>
            <Button variant="default" size="xs" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" component="nav" aria-label="Main">
        {NAVIGATION.map((item) => (
          <RouterLink key={item.path} to={item.path} end={item.end} style={{ textDecoration: 'none', color: 'inherit' }}>
            {({ isActive }) => <NavLink component="span" label={item.label} active={isActive} />}
          </RouterLink>
        ))}
      </AppShell.Navbar>
      {/* Keyed by account: switching accounts remounts the page, which then loads that account's data. */}
      <AppShell.Main id="content" tabIndex={-1} key={session.account}>
        {page}
      </AppShell.Main>
    </AppShell>
  );
}
