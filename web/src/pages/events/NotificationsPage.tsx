/** The account's notification configurations of every kind the service offers, and adding one. */
import { Alert, Anchor, Badge, Loader, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { data } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useApi } from '../../components/SessionProvider';
import { useAsyncData } from '../../components/useAsyncData';
import { NotificationConfigForm } from './NotificationConfigForm';
import { isKind, KIND_LABEL, KINDS, notificationApi, type Configuration, type Kind } from './notificationApi';
import { TableHead } from '../../components/TableHead';

export function NotificationsPage() {
  const { api } = useApi();
  const navigate = useNavigate();
  const [kind, setKind] = useState<Kind>('webhook');
  const [createError, setCreateError] = useState<unknown>();
  const endpoints = useAsyncData(() => data(api.rest.GET('/notifications/endpoints')), [api]);
  const configurations = useAsyncData(
    async () => Promise.all(KINDS.map(async (k) => ({ kind: k, items: (await notificationApi(api.rest, k).list()) as Configuration[] }))),
    [api],
  );
  const enabled = new Map((endpoints.data ?? []).map((e) => [e.name, e.enabled]));
  const rows = (configurations.data ?? []).flatMap(({ kind: k, items }) => items.map((c) => ({ kind: k, config: c })));

  async function create(config: Configuration) {
    setCreateError(undefined);
    try {
      const created = (await notificationApi(api.rest, kind).create(config)) as Configuration;
      // The generated signing secret is in this answer only: the configuration page shows it once.
      navigate(`/events/notifications/${kind}/${created.uuid}`, { state: { signingSecret: created.signing_secret } });
    } catch (error) {
      setCreateError(error);
    }
  }

  return (
    <Stack>
      <Title order={1}>Notifications</Title>
      <ApiErrorAlert error={endpoints.error} title="The endpoint kinds could not be loaded" />
      <ApiErrorAlert error={configurations.error} title="The configurations could not be loaded" />
      {configurations.loading && <Loader size="sm" aria-label="Loading configurations" />}
      {configurations.data && rows.length === 0 && <Text>No notification configurations yet.</Text>}
      {rows.length > 0 && (
        <Table striped withTableBorder aria-label="Notification configurations">
          <TableHead columns={['Configuration', 'Kind', 'Target', 'Created']} />
          <Table.Tbody>
            {rows.map(({ kind: k, config }) => (
              <Table.Tr key={config.uuid}>
                <Table.Td>
                  <Anchor component={Link} to={`/events/notifications/${k}/${config.uuid}`}>
                    {config.description || config.uuid}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  {KIND_LABEL[k]}{' '}
                  {enabled.get(k) === false && (
                    <Badge color="gray" variant="light">
                      kind disabled
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>{k === 'smtp' ? `${config.to} via ${config.host}:${config.port}` : config.url}</Table.Td>
                <Table.Td>{config.created_at ? new Date(config.created_at).toLocaleString() : '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Title order={2}>Add a configuration</Title>
      <Select
        label="Kind"
        data={KINDS.map((k) => ({ value: k, label: `${KIND_LABEL[k]}${enabled.get(k) === false ? ' (disabled by an administrator)' : ''}` }))}
        value={kind}
        onChange={(v) => isKind(v ?? undefined) && setKind(v as Kind)}
        allowDeselect={false}
        maw={320}
      />
      {enabled.get(kind) === false && <Alert color="yellow">This kind is disabled: its notifications wait until an administrator enables it.</Alert>}
      <ApiErrorAlert error={createError} title="The configuration was not created" />
      <NotificationConfigForm key={kind} kind={kind} submitLabel="Create configuration" onSubmit={create} />
    </Stack>
  );
}
