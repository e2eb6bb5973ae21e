/** The account's events, newest first, filtered by type, level, resource and time, a page at a time. */
import { Autocomplete, Badge, Button, Code, Group, Loader, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { data } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useApi } from '../../components/SessionProvider';
import { useAsyncData } from '../../components/useAsyncData';
import { TableHead } from '../../components/TableHead';

const PAGE_SIZE = 50;

interface EventFilters {
  type: string;
  level: string;
  resourceType: string;
  resourceId: string;
  /** datetime-local values (the browser's time zone). */
  since: string;
  before: string;
}

const NO_FILTERS: EventFilters = { type: '', level: '', resourceType: '', resourceId: '', since: '', before: '' };

const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function EventStreamPage() {
  const { api } = useApi();
  const [form, setForm] = useState<EventFilters>(NO_FILTERS);
  const [applied, setApplied] = useState<EventFilters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const types = useAsyncData(() => data(api.rest.GET('/event-types')), [api]);
  const events = useAsyncData(
    () =>
      data(
        api.rest.GET('/events', {
          params: {
            query: {
              event_type: applied.type || undefined,
              level: (applied.level || undefined) as 'INFO' | 'ERROR' | undefined,
              resource_type: applied.resourceType || undefined,
              resource_id: applied.resourceId || undefined,
              since: isoOf(applied.since),
              before: isoOf(applied.before),
              page,
              limit: PAGE_SIZE,
            },
          },
        }),
      ),
    [api, applied, page],
  );
  const field = (name: keyof EventFilters) => (value: string) => setForm((f) => ({ ...f, [name]: value }));

  function apply(event: FormEvent) {
    event.preventDefault();
    setApplied(form);
    setPage(1);
  }

  const typeNames = (types.data ?? []).flatMap((c) => c.types.map((t) => t.type));
  return (
    <Stack>
      <Title order={1}>Events</Title>
      <form onSubmit={apply} aria-label="Event filters">
        <Group align="flex-end">
          <Autocomplete label="Type" description="A type, a prefix ending in “.” or a pattern with *" data={typeNames} value={form.type} onChange={field('type')} w={300} />
          <Select label="Level" data={[{ value: '', label: 'Any' }, 'INFO', 'ERROR']} value={form.level} onChange={(v) => field('level')(v ?? '')} w={110} />
          <TextInput label="Resource type" value={form.resourceType} onChange={(e) => field('resourceType')(e.currentTarget.value)} w={150} />
          <TextInput label="Resource id" value={form.resourceId} onChange={(e) => field('resourceId')(e.currentTarget.value)} w={220} />
          <TextInput label="Since" type="datetime-local" value={form.since} onChange={(e) => field('since')(e.currentTarget.value)} />
          <TextInput label="Before" type="datetime-local" value={form.before} onChange={(e) => field('before')(e.currentTarget.value)} />
          <Button type="submit">Apply filters</Button>
          <Button variant="default" onClick={() => (setForm(NO_FILTERS), setApplied(NO_FILTERS), setPage(1))}>
            Clear
          </Button>
        </Group>
      </form>
      <ApiErrorAlert error={types.error} title="The event types could not be loaded" />
      <ApiErrorAlert error={events.error} title="The events could not be loaded" />
      {events.loading && <Loader size="sm" aria-label="Loading events" />}
      {events.data && events.data.results.length === 0 && <Text role="status">No events match these filters.</Text>}
      {events.data && events.data.results.length > 0 && (
        <Table striped withTableBorder aria-label="Events">
          <TableHead columns={['Time', 'Level', 'Type', 'Resource', 'Message']} />
          <Table.Tbody>
            {events.data.results.map(({ generated_uuid, event }) => (
              <Table.Tr key={generated_uuid}>
                <Table.Td>{new Date(event.timestamp).toLocaleString()}</Table.Td>
                {/* Wide enough for the badge: a squeezed column would cut INFO to "I…". */}
                <Table.Td style={{ minWidth: 80 }}>
                  <Badge color={event.level === 'ERROR' ? 'red' : 'blue'} variant="light">
                    {event.level}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Code>{event.type}</Code>
                </Table.Td>
                <Table.Td>
                  {event.resource.type}: {event.resource.id}
                </Table.Td>
                <Table.Td>{event.message}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {events.data && (
        <Group aria-label="Pages">
          <Button variant="default" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            Previous page
          </Button>
          <Text size="sm">
            Page {events.data.page} · {events.data.item_count} events on this page
          </Text>
          <Button variant="default" disabled={!events.data.next_page} onClick={() => setPage((p) => p + 1)}>
            Next page
          </Button>
        </Group>
      )}
    </Stack>
  );
}
