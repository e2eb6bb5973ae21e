/**
 * The users of one account: create one, enable or disable, set a password, and their role bindings in the
 * account (the Roles column, read from users-with-roles; changed in UserRolesModal).
 */
import { Alert, Anchor, Badge, Button, Group, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import type { components } from '../../../../generated/openapi-types';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { usePermissions } from './permissions';
import { SetPasswordModal } from './SetPasswordModal';
import { type Column, ErrorAlert, formatTime, InlineForm, PagedTable, useAction, useLoad } from './shared';
import { UserRolesModal } from './UserRolesModal';

type User = components['schemas']['User'];

function CreateUserForm({ account, onCreated }: { account: string; onCreated(): void }) {
  const { api } = useApi();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const create = useAction();

  async function submit() {
    const created = await create.run(() =>
      data(api.rest.POST('/accounts/{account_name}/users', { params: { path: { account_name: account } }, body: { username: username.trim(), password } })),
    );
    if (created) {
      setUsername('');
      setPassword('');
      onCreated();
    }
  }

  return (
    <InlineForm title="Create a user" action={create} errorTitle="Could not create the user" submitLabel="Create user" onSubmit={submit}>
      <TextInput label="Username" autoComplete="off" required value={username} onChange={(e) => setUsername(e.currentTarget.value)} />
      <PasswordInput label="Password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} w={240} />
    </InlineForm>
  );
}

export function AccountUsersPage() {
  const account = useParams().account ?? '';
  const { api, session } = useApi();
  const { can, isAdmin } = usePermissions();
  const path = { params: { path: { account_name: account } } };
  const users = useLoad(() => data(api.rest.GET('/accounts/{account_name}/users', path)), [api, account]);
  const seeRoles = can('listAccountUsersWithRoles');
  const withRoles = useLoad(
    () => (seeRoles ? data(api.rest.GET('/accounts/{account_name}/users-with-roles', path)) : Promise.resolve(null)),
    [api, account, seeRoles],
  );
  const toggle = useAction();
  const [rolesOf, setRolesOf] = useState<string | null>(null);
  const [passwordOf, setPasswordOf] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const rolesByUser = new Map((withRoles.data?.items ?? []).map((u) => [u.username, (u.unified_roles ?? []).filter((r) => r.domain_name === account)]));

  const setState = (user: User, state: 'enabled' | 'disabled') =>
    toggle.run(async () => {
      await data(api.rest.PUT('/accounts/{account_name}/users/{username}/state', { params: { path: { account_name: account, username: user.username } }, body: { state } }));
      users.reload();
    });

  const columns: Column<User>[] = [
    { header: 'Username', cell: (u) => u.username },
    { header: 'Type', cell: (u) => (u.source && u.source !== u.type ? `${u.type} (${u.source})` : u.type) },
    { header: 'State', cell: (u) => <Badge color={u.state === 'enabled' ? 'green' : 'gray'} variant="light">{u.state}</Badge> },
    ...(seeRoles
      ? [
          {
            header: 'Roles',
            cell: (u: User) => {
              const roles = rolesByUser.get(u.username) ?? [];
              if (roles.length === 0) return '—';
              return (
                <Group gap={4}>
                  {roles.map((r) => (
                    <Badge key={`${r.role_name}/${r.grant_type}/${r.group_name ?? ''}`} variant="outline" title={r.grant_type === 'direct' ? 'Granted directly' : `Through group ${r.group_name ?? ''}`}>
                      {r.role_name}
                      {r.grant_type !== 'direct' ? ' (group)' : ''}
                    </Badge>
                  ))}
                </Group>
              );
            },
          },
        ]
      : []),
    { header: 'Created', cell: (u) => formatTime(u.created_at) },
    {
      header: 'Actions',
      cell: (u) => {
        // A user cannot disable itself; the server says so too, but the button would only invite the refusal.
        const self = u.username === session.username;
        return (
          <Group gap={4} wrap="nowrap">
            {can('listRoleMembers') && (
              <Button size="xs" variant="default" onClick={() => setRolesOf(u.username)} aria-label={`Roles of ${u.username}`}>
                Roles
              </Button>
            )}
            {can('updateUser') && u.type === 'native' && (
              <Button size="xs" variant="default" onClick={() => setPasswordOf(u.username)} aria-label={`Set password of ${u.username}`}>
                Set password
              </Button>
            )}
            {can('updateUser') && !self && (
              <Button
                size="xs"
                variant="default"
                disabled={toggle.busy}
                onClick={() => void setState(u, u.state === 'enabled' ? 'disabled' : 'enabled')}
                aria-label={`${u.state === 'enabled' ? 'Disable' : 'Enable'} user ${u.username}`}
              >
                {u.state === 'enabled' ? 'Disable' : 'Enable'}
              </Button>
            )}
          </Group>
        );
      },
    },
  ];

  return (
    <Stack>
      <Title order={2}>Users of {account}</Title>
      {isAdmin && (
        <Anchor component={Link} to="/admin/accounts">
          All accounts
        </Anchor>
      )}
      {notice && (
        <Alert color="green" role="status" withCloseButton onClose={() => setNotice(null)} closeButtonLabel="Dismiss">
          {notice}
        </Alert>
      )}
      {can('createUser') && <CreateUserForm account={account} onCreated={users.reload} />}
      <ErrorAlert title="Could not list the users" error={users.error} />
      <ErrorAlert title="Could not read the users' roles" error={withRoles.error} />
      <ErrorAlert title="Could not change the user's state" error={toggle.error} />
      {users.data && <PagedTable label={`Users of ${account}`} rows={users.data} columns={columns} rowKey={(u) => u.username} empty="No users in this account." />}
      {rolesOf && <UserRolesModal username={rolesOf} account={account} onClose={() => setRolesOf(null)} onChanged={withRoles.reload} />}
      {passwordOf && (
        <SetPasswordModal
          username={passwordOf}
          account={account}
          onClose={() => setPasswordOf(null)}
          onDone={() => {
            setNotice(`The password of ${passwordOf} was set.`);
            setPasswordOf(null);
          }}
        />
      )}
    </Stack>
  );
}
