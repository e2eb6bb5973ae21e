/**
 * A user's role bindings in one account: view them, add a role, remove one. Changing a user's role is removing
 * the old binding and adding the new one; the list is read back from the server after each change.
 */
import { Badge, Button, Group, Select, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { data } from '../../api/client';
import { Dialog } from '../../components/Dialog';
import { useApi } from '../../components/SessionProvider';
import { usePermissions } from './permissions';
import { ErrorAlert, formatTime, useAction, useLoad } from './shared';

export function UserRolesModal({ username, account, onClose, onChanged }: { username: string; account: string; onClose(): void; onChanged(): void }) {
  const { api } = useApi();
  const { can } = usePermissions();
  const bindings = useLoad(
    () => data(api.rest.GET('/rbac-manager/users/{username}/roles', { params: { path: { username }, query: { domain_name: account } } })),
    [api, username, account],
  );
  const roles = useLoad(() => data(api.rest.GET('/rbac-manager/roles')), [api]);
  const [adding, setAdding] = useState<string | null>(null);
  const change = useAction();

  const held = new Set((bindings.data ?? []).map((b) => b.role));
  const addable = (roles.data ?? []).map((r) => r.name).filter((name) => !held.has(name));

  async function changed(work: () => Promise<unknown>) {
    if (await change.run(work)) {
      bindings.reload();
      onChanged();
    }
  }
  const add = (role: string) =>
    changed(async () => {
      await data(api.rest.POST('/rbac-manager/roles/{role_name}/members', { params: { path: { role_name: role } }, body: { username, domain_name: account } }));
      setAdding(null);
    });
  const remove = (role: string) =>
    changed(() =>
      api.rest.DELETE('/rbac-manager/roles/{role_name}/members', { params: { path: { role_name: role }, query: { username, domain_name: account } } }),
    );

  return (
    <Dialog onClose={onClose} title={`Roles of ${username} in ${account}`} size="lg">
      <Stack>
        <ErrorAlert title="Could not read the role bindings" error={bindings.error} />
        <ErrorAlert title="Could not list the roles" error={roles.error} />
        <ErrorAlert title="Could not change the role" error={change.error} />
        {bindings.data && bindings.data.length === 0 && <Text>No roles in {account}.</Text>}
        {bindings.data && bindings.data.length > 0 && (
          <Table aria-label="Role bindings">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Role</Table.Th>
                <Table.Th>Granted</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {bindings.data.map((b) => (
                <Table.Tr key={b.role}>
                  <Table.Td>
                    <Badge variant="light">{b.role}</Badge>
                  </Table.Td>
                  <Table.Td>{formatTime(b.created_at)}</Table.Td>
                  <Table.Td>
                    {can('deleteRoleMember') && (
                      <Button size="xs" variant="default" color="red" disabled={change.busy} onClick={() => void remove(b.role)} aria-label={`Remove role ${b.role}`}>
                        Remove
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {can('createRoleMember') && (
          <Group align="end">
            <Select label="Role to add" placeholder="Choose a role" data={addable} value={adding} onChange={setAdding} w={240} />
            <Button disabled={!adding} loading={change.busy} onClick={() => adding && void add(adding)}>
              Add role
            </Button>
          </Group>
        )}
      </Stack>
    </Dialog>
  );
}
