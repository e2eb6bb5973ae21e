/**
 * The vulnerability feeds: each dataset's sources with their record counts and last sync, and "Sync now" (for
 * administrators), which shows each source's progress until the sync is done and then its outcome.
 */
import { Alert, Badge, Button, Group, List, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { components } from '../../../../generated/openapi-types';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { usePermissions } from './permissions';
import { ErrorAlert, formatTime, useAction, useLoad } from './shared';

type Feed = components['schemas']['FeedMetadata'];
type FeedGroup = components['schemas']['FeedGroupMetadata'];
type SyncResult = components['schemas']['FeedSyncResponse'];

// How often the listing is read while a sync runs, for its progress.
const PROGRESS_MS = 1000;

function progressText(p: FeedGroup['sync_progress']): string | null {
  if (!p) return null;
  return p.records != null ? `${p.stage}, ${p.records.toLocaleString()} records read` : p.stage;
}

function FeedTable({ feed }: { feed: Feed }) {
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Title order={3}>{feed.name}</Title>
        <Badge color={feed.enabled ? 'green' : 'gray'} variant="light">
          {feed.enabled ? 'enabled' : 'disabled'}
        </Badge>
        <Text size="sm">Last full sync: {formatTime(feed.last_full_sync)}</Text>
      </Group>
      <Table aria-label={`Sources of ${feed.name}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Source</Table.Th>
            <Table.Th>Records</Table.Th>
            <Table.Th>Namespaces</Table.Th>
            <Table.Th>Last sync</Table.Th>
            <Table.Th>Result</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {feed.groups.map((g) => (
            <Table.Tr key={g.name}>
              <Table.Td>
                {g.name}
                {g.kind ? ` (${g.kind})` : ''}
              </Table.Td>
              <Table.Td>{g.record_count.toLocaleString()}</Table.Td>
              <Table.Td>{g.namespaces?.length ? g.namespaces.map((n) => n.name).join(', ') : '—'}</Table.Td>
              <Table.Td>{formatTime(g.last_sync)}</Table.Td>
              <Table.Td>
                {progressText(g.sync_progress) ?? (g.last_sync_status === 'failed' ? `failed: ${g.last_sync_error ?? 'no reason given'}` : (g.last_sync_status ?? 'not synced yet'))}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function SyncOutcome({ result }: { result: SyncResult }) {
  const failed = result.status === 'failed' || (result.feeds ?? []).some((f) => f.status === 'failed');
  const done = result.status === 'done' || result.status === 'failed';
  return (
    <Alert color={failed ? 'red' : done ? 'green' : 'yellow'} role={failed ? 'alert' : 'status'} title={done ? `Sync ${result.status === 'done' ? 'finished' : 'failed'}` : 'Sync still running'}>
      {!done && <Text size="sm">Job {result.job_id} is {result.status}; the table shows its progress.</Text>}
      {(result.feeds ?? []).length > 0 && (
        <List size="sm">
          {(result.feeds ?? []).map((f) => (
            <List.Item key={f.feed}>
              {f.feed}: {f.status}
              {f.error ? ` (${f.error})` : ''}
            </List.Item>
          ))}
        </List>
      )}
      {result.rematch && (
        <Text size="sm">
          Images re-matched: {result.rematch.images}; findings changed in {result.rematch.changed_images} ({result.rematch.added} added, {result.rematch.updated} updated,{' '}
          {result.rematch.removed} removed).
        </Text>
      )}
    </Alert>
  );
}

export function FeedsPage() {
  const { api } = useApi();
  const { can } = usePermissions();
  const feeds = useLoad(() => data(api.rest.GET('/system/feeds')), [api]);
  const sync = useAction();
  const [result, setResult] = useState<SyncResult | null>(null);
  const { reload } = feeds;

  // While the sync request is open, the listing is re-read for each source's progress.
  useEffect(() => {
    if (!sync.busy) return;
    const timer = setInterval(reload, PROGRESS_MS);
    return () => clearInterval(timer);
  }, [sync.busy, reload]);

  const syncNow = () =>
    sync.run(async () => {
      setResult(null);
      try {
        // Answers once the sync is done (or after the timeout, with the job still running).
        setResult(await data(api.rest.POST('/system/feeds', { params: { query: { wait: true, timeout_seconds: 600 } } })));
      } finally {
        reload();
      }
    });

  const running = (feeds.data ?? []).flatMap((f) => f.groups.filter((g) => g.sync_progress).map((g) => `${g.name}: ${progressText(g.sync_progress)}`));

  return (
    <Stack>
      <Title order={2}>Feeds</Title>
      {can('updateFeeds') && (
        <Group>
          <Button onClick={() => void syncNow()} loading={sync.busy} loaderProps={{ 'aria-label': 'Syncing' }}>
            Sync now
          </Button>
          {sync.busy && (
            <Group gap="xs" role="status" aria-live="polite">
              <Loader size="xs" aria-hidden />
              <Text size="sm">Syncing{running.length ? ` — ${running.join('; ')}` : '…'}</Text>
            </Group>
          )}
        </Group>
      )}
      <ErrorAlert title="Could not sync the feeds" error={sync.error} />
      {result && <SyncOutcome result={result} />}
      <ErrorAlert title="Could not list the feeds" error={feeds.error} />
      {feeds.data && feeds.data.length === 0 && <Text>No feeds: no feed source is configured or uploaded.</Text>}
      {feeds.data?.map((f) => <FeedTable key={f.name} feed={f} />)}
    </Stack>
  );
}
