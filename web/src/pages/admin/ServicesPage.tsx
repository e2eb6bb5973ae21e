/** The services of every node sharing the database, and whether each is alive (refreshed while the page is open). */
import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { ErrorAlert, PagedTable, useLoad } from './shared';

// Heartbeats come every VIGIL_HEARTBEAT_SECONDS (default 30 s); refreshing faster would show nothing new.
const REFRESH_MS = 15_000;

export function ServicesPage() {
  const { api } = useApi();
  const services = useLoad(() => data(api.rest.GET('/system/services')), [api]);
  const { reload } = services;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);

  const rows = [...(services.data ?? [])].sort((a, b) => a.host_id.localeCompare(b.host_id) || a.service_name.localeCompare(b.service_name));
  const down = rows.filter((s) => !s.status).length;

  return (
    <Stack>
      <Title order={2}>Services</Title>
      <Group>
        <Text size="sm" role="status">
          {services.data ? `${rows.length} registered, ${rows.length - down} up, ${down} down` : 'Loading…'}
        </Text>
        <Button size="xs" variant="default" onClick={reload} loading={services.loading}>
          Refresh
        </Button>
      </Group>
      <ErrorAlert title="Could not list the services" error={services.error} />
      {services.data && (
        <PagedTable
          label="Services"
          rows={rows}
          rowKey={(s) => `${s.host_id}/${s.service_name}`}
          empty="No services registered."
          columns={[
            { header: 'Host', cell: (s) => s.host_id },
            { header: 'Service', cell: (s) => s.service_name },
            { header: 'Status', cell: (s) => <Badge color={s.status ? 'green' : 'red'} variant="light">{s.status ? 'up' : 'down'}</Badge> },
            { header: 'Message', cell: (s) => s.status_message ?? '' },
            { header: 'Version', cell: (s) => s.version },
            { header: 'Address', cell: (s) => s.base_url ?? '' },
          ]}
        />
      )}
    </Stack>
  );
}
