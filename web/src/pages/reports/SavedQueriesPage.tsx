/** The account's saved (scheduled) queries, a page at a time, with their newest execution; a link to GraphiQL. */
import { Anchor, Badge, Button, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useApiCall } from '../../api/use-api-call';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { ExecutionStatus } from './ExecutionStatus';
import { listSavedQueries } from './queries';

const PAGE_SIZE = 50;

/** GraphiQL, served by Vigil beside the GraphQL endpoint (it asks for its own sign-in). */
export const GRAPHIQL_URL = '/v2/reports/graphql';

export function GraphiqlLink() {
  return (
    <Anchor href={GRAPHIQL_URL} target="_blank" rel="noopener">
      Open GraphiQL for ad-hoc queries (new tab)
    </Anchor>
  );
}

export function SavedQueriesPage() {
  // The tokens of the pages seen so far, to go back (GraphQL pages forward only).
  const [tokens, setTokens] = useState<(string | null)[]>([null]);
  const token = tokens[tokens.length - 1];
  const call = useApiCall((api) => listSavedQueries(api, PAGE_SIZE, token), [token]);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Reports</Title>
        <GraphiqlLink />
      </Group>
      <Text>Saved queries run on their schedule and keep each execution's result. Create them through the GraphQL API (GraphiQL).</Text>
      {call.loading && <Loader size="sm" aria-label="Loading saved queries" />}
      {call.error ? <ApiErrorAlert error={call.error} action="list the saved queries" /> : null}
      {call.data &&
        (call.data.results.length === 0 && tokens.length === 1 ? (
          <Text>There are no saved queries in this account yet.</Text>
        ) : (
          <Table striped withTableBorder captionSide="top">
            <caption>Saved queries</caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Schedule (cron, UTC)</Table.Th>
                <Table.Th scope="col">Next run (UTC)</Table.Th>
                <Table.Th scope="col">Last execution</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {call.data.results.map((q) => (
                <Table.Tr key={q.uuid}>
                  <Table.Th scope="row">
                    <Anchor component={Link} to={`/reports/${q.uuid}`}>
                      {q.name}
                    </Anchor>
                    {q.description && (
                      <Text size="xs" c="dimmed">
                        {q.description}
                      </Text>
                    )}
                  </Table.Th>
                  <Table.Td>
                    <code>{q.cronSchedule}</code> {!q.enabled && <Badge color="gray">disabled</Badge>}
                  </Table.Td>
                  <Table.Td>{q.nextRunAt ?? '–'}</Table.Td>
                  <Table.Td>{q.executions[0] ? <ExecutionStatus execution={q.executions[0]} /> : 'never run'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ))}
      <Group>
        <Button variant="default" disabled={tokens.length === 1} onClick={() => setTokens((t) => t.slice(0, -1))}>
          Previous page
        </Button>
        <Button variant="default" disabled={!call.data?.nextToken} onClick={() => call.data?.nextToken && setTokens((t) => [...t, call.data!.nextToken])}>
          Next page
        </Button>
      </Group>
    </Stack>
  );
}
