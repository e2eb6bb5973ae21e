/** A configuration's deliveries, newest first, a page at a time: state, tries, receipts of each attempt, replay. */
import { Badge, Button, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { Fragment, useState } from 'react';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useAsyncData } from '../../components/useAsyncData';
import type { Delivery, notificationApi, Receipt } from './notificationApi';
import { TableHead } from '../../components/TableHead';

const PAGE_SIZE = 25;
const STATE_COLOR: Record<Delivery['state'], string> = { pending: 'yellow', delivering: 'blue', delivered: 'green', failed: 'red' };
type Calls = ReturnType<typeof notificationApi>;

function Receipts({ calls, uuid, delivery }: { calls: Calls; uuid: string; delivery: Delivery }) {
  const receipts = useAsyncData(() => calls.receipts(uuid, delivery.notification_id), [calls, uuid, delivery]);
  if (receipts.error) return <ApiErrorAlert error={receipts.error} title="The receipts could not be loaded" />;
  if (!receipts.data) return <Loader size="xs" aria-label="Loading receipts" />;
  if (receipts.data.items.length === 0) return <Text size="sm">No delivery attempts yet.</Text>;
  return (
    <Table withTableBorder aria-label={`Receipts of ${delivery.notification_id}`}>
      <TableHead columns={['Attempt', 'At', 'Result', 'Answer', 'Latency', 'Error']} />
      <Table.Tbody>
        {receipts.data.items.map((r: Receipt) => (
          <Table.Tr key={r.receipt_id}>
            <Table.Td>{r.attempt}</Table.Td>
            <Table.Td>{new Date(r.attempted_at).toLocaleString()}</Table.Td>
            <Table.Td>{r.success ? 'accepted' : 'failed'}</Table.Td>
            <Table.Td>{r.response || r.smtp_response || (r.http_status != null ? `HTTP ${r.http_status}` : '—')}</Table.Td>
            <Table.Td>{r.latency_ms} ms</Table.Td>
            <Table.Td>{r.error ?? '—'}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function DeliveriesPanel({ calls, uuid }: { calls: Calls; uuid: string }) {
  const [page, setPage] = useState(1);
  const deliveries = useAsyncData(() => calls.deliveries(uuid, page, PAGE_SIZE), [calls, uuid, page]);
  const [open, setOpen] = useState<string>();
  const [replayError, setReplayError] = useState<unknown>();

  async function replay(delivery: Delivery) {
    setReplayError(undefined);
    try {
      await calls.replay(uuid, delivery.notification_id);
      deliveries.reload();
    } catch (error) {
      setReplayError(error);
    }
  }

  return (
    <Stack gap="sm">
      <Group>
        <Title order={2}>Deliveries</Title>
        <Button size="xs" variant="default" onClick={deliveries.reload}>
          Refresh deliveries
        </Button>
        {deliveries.loading && <Loader size="xs" aria-label="Loading deliveries" />}
      </Group>
      <ApiErrorAlert error={deliveries.error} title="The deliveries could not be loaded" />
      <ApiErrorAlert error={replayError} title="The replay failed" />
      {deliveries.data && deliveries.data.items.length === 0 && <Text size="sm">Nothing delivered yet (test sends are not queued deliveries).</Text>}
      {deliveries.data && deliveries.data.items.length > 0 && (
        <Table withTableBorder aria-label="Deliveries">
          <TableHead columns={['Queued', 'Notification', 'Event', 'State', 'Tries', 'Last error', 'Actions']} />
          <Table.Tbody>
            {deliveries.data.items.map((d) => (
              <Fragment key={d.notification_id}>
                <Table.Tr>
                  <Table.Td>{new Date(d.created_at).toLocaleString()}</Table.Td>
                  <Table.Td>{d.notification_type}</Table.Td>
                  <Table.Td>{d.event_type ?? '—'}</Table.Td>
                  <Table.Td>
                    <Badge color={STATE_COLOR[d.state]} variant="light">
                      {d.state}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    {d.tries} of {d.max_tries}
                    {d.replays ? ` (replayed ${d.replays}×)` : ''}
                  </Table.Td>
                  <Table.Td>{d.last_error ?? '—'}</Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Button
                        size="xs"
                        variant="default"
                        aria-expanded={open === d.notification_id}
                        onClick={() => setOpen(open === d.notification_id ? undefined : d.notification_id)}
                      >
                        Receipts
                      </Button>
                      <Button size="xs" variant="default" disabled={d.state === 'pending' || d.state === 'delivering'} onClick={() => void replay(d)}>
                        Replay
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
                {open === d.notification_id && (
                  <Table.Tr>
                    <Table.Td colSpan={7}>
                      <Receipts calls={calls} uuid={uuid} delivery={d} />
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {deliveries.data && (deliveries.data.page > 1 || deliveries.data.next_page) && (
        <Group>
          <Button size="xs" variant="default" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            Newer deliveries
          </Button>
          <Text size="sm">Page {deliveries.data.page}</Text>
          <Button size="xs" variant="default" disabled={!deliveries.data.next_page} onClick={() => setPage((p) => p + 1)}>
            Older deliveries
          </Button>
        </Group>
      )}
    </Stack>
  );
}
