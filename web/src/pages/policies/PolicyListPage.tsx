/** The account's policies, the active one marked. */
import { Anchor, Badge, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { data } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useApi } from '../../components/SessionProvider';
import { useAsyncData } from '../../components/useAsyncData';
import { TableHead } from '../../components/TableHead';

export function PolicyListPage() {
  const { api } = useApi();
  const policies = useAsyncData(() => data(api.rest.GET('/policies', { params: { query: { detail: false } } })), [api]);
  return (
    <Stack>
      <Title order={1}>Policies</Title>
      <Text size="sm">The active policy decides every image’s pass or fail result. Open a policy to see its rules, edit it, try it in a dry run and activate it.</Text>
      <ApiErrorAlert error={policies.error} title="The policies could not be loaded" />
      {policies.loading && !policies.data && <Loader aria-label="Loading the policies" />}
      {policies.data && (
        <Table striped highlightOnHover withTableBorder aria-label="Policies">
          <TableHead columns={['Name', 'Id', 'State', 'Source', 'Last updated']} />
          <Table.Tbody>
            {policies.data.map((policy) => (
              <Table.Tr key={policy.policy_id}>
                <Table.Td>
                  <Anchor component={Link} to={`/policies/${encodeURIComponent(policy.policy_id)}`}>
                    {policy.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>{policy.policy_id}</Table.Td>
                <Table.Td>
                  {policy.active ? (
                    <Badge color="green" variant="light">
                      Active
                    </Badge>
                  ) : (
                    'Inactive'
                  )}
                </Table.Td>
                <Table.Td>{policy.policy_source}</Table.Td>
                <Table.Td>{policy.last_updated ?? '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
