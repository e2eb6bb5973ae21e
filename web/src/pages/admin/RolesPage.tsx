/**
 * The roles (RBAC): each with its description; one chosen shows its permissions and its members in the account
 * acted in. Granting and removing roles is done per user, under the users of an account.
 */
import { Badge, Code, Group, List, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { usePermissions } from './permissions';
import { ErrorAlert, formatTime, PagedTable, useLoad } from './shared';

function RoleDetail({ name }: { name: string }) {
  const { api, session } = useApi();
  const { can } = usePermissions();
  const role = useLoad(() => data(api.rest.GET('/rbac-manager/roles/{role_name}', { params: { path: { role_name: name } } })), [api, name]);
  const seeMembers = can('listRoleMembers');
  const members = useLoad(
    () =>
      seeMembers
        ? data(api.rest.GET('/rbac-manager/roles/{role_name}/members', { params: { path: { role_name: name }, query: { domain_name: session.account } } }))
        : Promise.resolve(null),
    [api, name, session.account, seeMembers],
  );
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <Stack gap="xs">
        <Title order={3}>Permissions of {name}</Title>
        <ErrorAlert title="Could not read the role" error={role.error} />
        {role.data && (
          <>
            {role.data.immutable && <Text size="sm">Built in; its permissions follow the API's operations.</Text>}
            <List size="sm" aria-label={`Permissions of ${name}`} style={{ columns: 2 }}>
              {role.data.permissions.map((p) => (
                <List.Item key={`${p.action} ${p.target}`}>
                  <Code>{p.action}</Code>
                  {p.target !== '*' ? ` on ${p.target}` : ''}
                </List.Item>
              ))}
            </List>
          </>
        )}
      </Stack>
      {seeMembers && (
        <Stack gap="xs">
          <Title order={3}>
            Members in {session.account}
          </Title>
          <ErrorAlert title="Could not list the role's members" error={members.error} />
          {members.data && (
            <PagedTable
              label={`Members of ${name} in ${session.account}`}
              rows={members.data}
              rowKey={(m) => m.username}
              empty="No members in this account."
              columns={[
                { header: 'User', cell: (m) => m.username },
                { header: 'Granted', cell: (m) => formatTime(m.created_at) },
              ]}
            />
          )}
        </Stack>
      )}
    </SimpleGrid>
  );
}

export function RolesPage() {
  const { api } = useApi();
  const { roles: mine } = usePermissions();
  const roles = useLoad(() => data(api.rest.GET('/rbac-manager/roles')), [api]);
  const [chosen, setChosen] = useState<string | null>(null);

  return (
    <Stack>
      <Title order={2}>Roles</Title>
      <ErrorAlert title="Could not list the roles" error={roles.error} />
      {mine.length > 0 && (
        <Group gap={4}>
          <Text size="sm">Your roles here:</Text>
          {mine.map((r) => (
            <Badge key={r} variant="light">
              {r}
            </Badge>
          ))}
        </Group>
      )}
      {roles.data && (
        <>
          <PagedTable
            label="Roles"
            rows={roles.data}
            rowKey={(r) => r.name}
            empty="No roles."
            columns={[
              { header: 'Role', cell: (r) => <Code>{r.name}</Code> },
              { header: 'Description', cell: (r) => r.description ?? '' },
            ]}
          />
          <Select label="Show the permissions and members of" placeholder="Choose a role" data={roles.data.map((r) => r.name)} value={chosen} onChange={setChosen} w={320} />
          {chosen && <RoleDetail name={chosen} />}
        </>
      )}
    </Stack>
  );
}
