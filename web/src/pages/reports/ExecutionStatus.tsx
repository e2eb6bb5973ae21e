/** An execution's status as a badge, and the executions of a saved query as a table linking to their results. */
import { Anchor, Badge, Table, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { Execution } from './queries';

const STATUS_COLORS: Record<Execution['status'], string> = { queued: 'gray', running: 'blue', complete: 'green', failed: 'red' };

export function ExecutionStatus({ execution }: { execution: Pick<Execution, 'status'> }) {
  return (
    <Badge color={STATUS_COLORS[execution.status]} variant="light" c="dark.7">
      {execution.status}
    </Badge>
  );
}

export function ExecutionsTable({ queryUuid, executions }: { queryUuid: string; executions: Execution[] }) {
  if (executions.length === 0) return <Text>It has not run yet.</Text>;
  return (
    <Table striped withTableBorder captionSide="top">
      <caption>Executions, newest first</caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">Started (UTC)</Table.Th>
          <Table.Th scope="col">Trigger</Table.Th>
          <Table.Th scope="col">Status</Table.Th>
          <Table.Th scope="col">Finished (UTC)</Table.Th>
          <Table.Th scope="col">Results</Table.Th>
          <Table.Th scope="col">Result</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {executions.map((e) => (
          <Table.Tr key={e.uuid}>
            <Table.Td>{e.startedAt ?? e.createdAt}</Table.Td>
            <Table.Td>{e.trigger}</Table.Td>
            <Table.Td>
              <ExecutionStatus execution={e} />
              {e.error && (
                <Text size="xs" c="red.9">
                  {e.error}
                </Text>
              )}
            </Table.Td>
            <Table.Td>{e.finishedAt ?? '–'}</Table.Td>
            <Table.Td>{e.resultCount}</Table.Td>
            <Table.Td>
              {e.status === 'complete' ? (
                <Anchor component={Link} to={`/reports/${queryUuid}/executions/${e.uuid}`}>
                  View result of {e.startedAt ?? e.createdAt}
                </Anchor>
              ) : (
                '–'
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
