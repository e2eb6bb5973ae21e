/**
 * The dashboard's system panels: how fresh each vulnerability feed is (GET /system/feeds), and the analysis
 * queue (the account's images by analysis status, and the reporting data's pending changes).
 */
import { Badge, Table, Text } from '@mantine/core';
import type { components } from '../../../../generated/openapi-types';
import { data } from '../../api/client';
import { useApiCall } from '../../api/use-api-call';
import type { Gql } from '../../api/client';
import { Figure, Figures, Panel } from './Panel';

type Feed = components['schemas']['FeedMetadata'];
type FeedGroup = components['schemas']['FeedGroupMetadata'];

/** "3 h ago" for a timestamp, against now. */
export function age(iso: string | undefined | null, now = Date.now()): string {
  if (!iso) return 'never';
  const minutes = Math.round((now - Date.parse(iso.endsWith('Z') || /[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`)) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 120) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h ago`;
  return `${Math.round(minutes / 1440)} days ago`;
}

function feedState(groups: FeedGroup[]): { label: string; color: string; detail?: string } {
  const syncing = groups.find((g) => g.sync_progress);
  if (syncing) return { label: `Syncing (${syncing.sync_progress!.stage})`, color: 'blue' };
  const failed = groups.filter((g) => g.last_sync_status === 'failed');
  if (failed.length) return { label: 'Last sync failed', color: 'red', detail: failed.map((g) => `${g.name}: ${g.last_sync_error ?? 'no reason given'}`).join('; ') };
  if (groups.some((g) => g.last_sync)) return { label: 'OK', color: 'green' };
  return { label: 'Not synced', color: 'gray' };
}

export function FeedsPanel() {
  const call = useApiCall(async (api) => data(api.rest.GET('/system/feeds')));
  return (
    <Panel title="Feed freshness" action="load the feeds" call={call} note="The vulnerability data findings are matched against.">
      {(feeds: Feed[]) =>
        feeds.length === 0 ? (
          'No feeds are configured.'
        ) : (
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Feed</Table.Th>
                <Table.Th scope="col">Last successful sync</Table.Th>
                <Table.Th scope="col">Records</Table.Th>
                <Table.Th scope="col">State</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {feeds.map((feed) => {
                const state = feedState(feed.groups ?? []);
                return (
                  <Table.Tr key={feed.name}>
                    <Table.Th scope="row">{feed.name}</Table.Th>
                    <Table.Td title={feed.last_full_sync ?? undefined}>{age(feed.last_full_sync ?? feed.enterprise_received_at)}</Table.Td>
                    <Table.Td>{(feed.groups ?? []).reduce((sum, g) => sum + g.record_count, 0).toLocaleString('en')}</Table.Td>
                    <Table.Td>
                      <Badge color={state.color} variant="light" c="dark.7">
                        {state.label}
                      </Badge>
                      {state.detail && (
                        <Text size="xs" c="red.9">
                          {state.detail}
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )
      }
    </Panel>
  );
}

type ReportingStatus = { reportingStatus: Pick<Gql.ReportingStatus, 'refreshedAt' | 'pendingChanges'> };

export function QueuePanel() {
  const counts = useApiCall(async (api) => data(api.rest.GET('/summaries/image-counts')));
  const reporting = useApiCall((api) => api.graphql<ReportingStatus>('query DashboardReportingStatus { reportingStatus { refreshedAt pendingChanges } }'));
  return (
    <>
      <Panel title="Analysis queue" action="count the images by analysis status" call={counts} note="The account's images by analysis status.">
        {(c) => (
          <Figures cols={3}>
            <Figure label="Waiting for analysis" value={c.pending} />
            <Figure label="Analyzing" value={c.analyzing} />
            <Figure label="Analysis failed" value={c.failed} />
            <Figure label="Analyzed" value={c.analyzed} />
            <Figure label="Images" value={c.images} />
            <Figure label="Current tags" value={c.tags} />
          </Figures>
        )}
      </Panel>
      <Panel title="Reporting data" action="load the reporting status" call={reporting} note="Reports, metrics and the known-exploited and policy counts read this data.">
        {({ reportingStatus: s }) => (
          <Figures cols={2}>
            <Figure label="Last refreshed" value={s.refreshedAt ? age(s.refreshedAt) : 'never'} />
            <Figure label="Changes waiting" value={s.pendingChanges} />
          </Figures>
        )}
      </Panel>
    </>
  );
}
