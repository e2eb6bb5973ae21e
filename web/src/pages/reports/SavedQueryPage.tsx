/** One saved query: what it runs and when, "run now", and its executions (each complete one links to its result). */
import { Alert, Anchor, Button, Code, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useApiAction, useApiCall } from '../../api/use-api-call';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { ExecutionsTable } from './ExecutionStatus';
import { getSavedQuery, runSavedQuery } from './queries';
import { GraphiqlLink } from './SavedQueriesPage';

const EXECUTIONS_SHOWN = 50;

function RunNow({ uuid, onRan }: { uuid: string; onRan(): void }) {
  const navigate = useNavigate();
  const action = useApiAction();
  const running = action.busy !== null;
  const error = action.error;
  const [failed, setFailed] = useState<string | null>(null);
  const run = () => {
    setFailed(null);
    return action.run(true, async (api) => {
      const execution = await runSavedQuery(api, uuid);
      if (execution.status === 'complete') navigate(`/reports/${uuid}/executions/${execution.uuid}`);
      else {
        setFailed(execution.error ?? `The execution ended ${execution.status}.`);
        onRan();
      }
    });
  };
  return (
    <Stack gap="xs">
      <Group>
        <Button onClick={() => void run()} loading={running}>
          Run now
        </Button>
        {running && <Text size="sm">Running; the result opens when it completes.</Text>}
      </Group>
      {error ? <ApiErrorAlert error={error} action="run the query" /> : null}
      {failed && (
        <Alert color="red" role="alert" title="The run failed">
          {failed}
        </Alert>
      )}
    </Stack>
  );
}

export function SavedQueryPage() {
  const { uuid = '' } = useParams();
  const call = useApiCall((api) => getSavedQuery(api, uuid, EXECUTIONS_SHOWN), [uuid]);
  const query = call.data;
  return (
    <Stack>
      <Anchor component={Link} to="/reports" size="sm">
        ← All saved queries
      </Anchor>
      <Title order={1}>{query ? query.name : 'Saved query'}</Title>
      {call.loading && <Loader size="sm" aria-label="Loading the saved query" />}
      {call.error ? <ApiErrorAlert error={call.error} action="load the saved query" /> : null}
      {query === null && <Text>There is no saved query {uuid} in this account.</Text>}
      {query && (
        <>
          {query.description && <Text>{query.description}</Text>}
          <SimpleGrid component="dl" cols={{ base: 2, md: 4 }} m={0}>
            {[
              ['Schedule (cron, UTC)', query.cronSchedule],
              ['Enabled', query.enabled ? 'yes' : 'no'],
              ['Next run (UTC)', query.nextRunAt ?? '–'],
              ['Last changed (UTC)', query.updatedAt],
            ].map(([label, value]) => (
              <div key={label}>
                <Text component="dt" size="sm" c="dimmed">
                  {label}
                </Text>
                <Text component="dd" m={0}>
                  {value}
                </Text>
              </div>
            ))}
          </SimpleGrid>
          <RunNow uuid={query.uuid} onRan={call.reload} />
          <Title order={2} size="h3">
            Query
          </Title>
          <Code block aria-label="GraphQL query">
            {query.query}
          </Code>
          {query.variables != null && Object.keys(query.variables as object).length > 0 && (
            <Code block aria-label="Variables">
              {JSON.stringify(query.variables, null, 2)}
            </Code>
          )}
          <GraphiqlLink />
          <Title order={2} size="h3">
            Executions
          </Title>
          <ExecutionsTable queryUuid={query.uuid} executions={query.executions} />
        </>
      )}
    </Stack>
  );
}
