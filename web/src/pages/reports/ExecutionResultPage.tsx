/**
 * One execution's stored result (REST /reporting/scheduled-query-results/{uuid}, a page of up to 1000 elements
 * at a time) as a table of flat rows, and the whole result as CSV or JSON.
 */
import { Anchor, Button, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useApiAction, useApiCall } from '../../api/use-api-call';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { flattenElements, toCsv } from './flatten';
import { getResultPage, getWholeResult, resultElements } from './queries';
import { ResultTable } from './ResultTable';

function saveFile(name: string, type: string, content: string) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click was handled; the download holds its own reference.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function Downloads({ executionUuid }: { executionUuid: string }) {
  const { busy, error, run } = useApiAction<'csv' | 'json'>();
  const download = (format: 'csv' | 'json') =>
    run(format, async (api) => {
      const elements = await getWholeResult(api, executionUuid);
      if (format === 'json') saveFile(`result-${executionUuid}.json`, 'application/json', `${JSON.stringify(elements, null, 2)}\n`);
      else saveFile(`result-${executionUuid}.csv`, 'text/csv', toCsv(flattenElements(elements)));
    });
  return (
    <Stack gap="xs">
      <Group>
        <Button variant="default" loading={busy === 'csv'} onClick={() => void download('csv')}>
          Download CSV
        </Button>
        <Button variant="default" loading={busy === 'json'} onClick={() => void download('json')}>
          Download JSON
        </Button>
      </Group>
      {error ? <ApiErrorAlert error={error} action="download the result" /> : null}
    </Stack>
  );
}

export function ExecutionResultPage() {
  const { uuid = '', executionUuid = '' } = useParams();
  const [page, setPage] = useState(1);
  const call = useApiCall((api) => getResultPage(api, executionUuid, page), [executionUuid, page]);
  const result = useMemo(() => (call.data ? resultElements(call.data) : null), [call.data]);
  const rows = useMemo(() => (result ? flattenElements(result.elements) : []), [result]);
  const answer = call.data;
  return (
    <Stack>
      <Anchor component={Link} to={`/reports/${uuid}`} size="sm">
        ← The saved query and its executions
      </Anchor>
      <Title order={1}>Report result</Title>
      {call.loading && <Loader size="sm" aria-label="Loading the result" />}
      {call.error ? <ApiErrorAlert error={call.error} action="load the result" /> : null}
      {answer && result && (
        <>
          <Text>
            {result.kind} — {answer.total_count} result elements, finished {answer.execution.finished_at}. Result page {answer.page}: {answer.returned_count} elements as{' '}
            {rows.length} rows.
          </Text>
          <Downloads executionUuid={executionUuid} />
          <ResultTable rows={rows} caption={`${result.kind}, result page ${answer.page}`} />
          {(answer.page > 1 || answer.next_page) && (
            <Group>
              <Button variant="default" disabled={answer.page === 1} onClick={() => setPage((p) => p - 1)}>
                Previous result page
              </Button>
              <Button variant="default" disabled={!answer.next_page} onClick={() => setPage((p) => p + 1)}>
                Next result page
              </Button>
            </Group>
          )}
        </>
      )}
    </Stack>
  );
}
