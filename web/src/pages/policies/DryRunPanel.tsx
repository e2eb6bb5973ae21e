/** The dry-run: the draft policy against the account's current tags, listing the tags whose result would change. */
import { Alert, Badge, Button, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { data } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useApi } from '../../components/SessionProvider';
import type { Policy, PolicyDryRun } from './policyTypes';
import { TableHead } from '../../components/TableHead';

const CHANGE_LABEL = { pass_to_fail: 'pass → fail', fail_to_pass: 'fail → pass', none: 'unchanged' } as const;

export function DryRunPanel({ policy, onProblems }: { policy: Policy; onProblems?(error: unknown): void }) {
  const { api } = useApi();
  const [result, setResult] = useState<PolicyDryRun>();
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);

  async function run() {
    setRunning(true);
    setError(undefined);
    try {
      setResult(await data(api.rest.POST('/policy-dry-run', { body: policy })));
    } catch (failure) {
      setResult(undefined);
      setError(failure);
      onProblems?.(failure);
    } finally {
      setRunning(false);
    }
  }

  const changed = result?.tags.filter((t) => t.change !== 'none') ?? [];
  return (
    <Stack gap="sm">
      <Title order={2} size="h3">
        Dry run
      </Title>
      <Text size="sm">Evaluates this policy against every current tag without storing anything, and lists the tags whose result would change.</Text>
      <Button onClick={() => void run()} loading={running} style={{ alignSelf: 'flex-start' }}>
        Run the dry run
      </Button>
      <ApiErrorAlert error={error} title="The dry run failed" />
      {result && (
        <section aria-label="Dry-run result">
          <Alert color={changed.length ? 'yellow' : 'green'} title="Dry-run result" role="status">
            {result.summary.tags} tags evaluated against the active policy {result.active_policy_id}: {result.summary.pass_to_fail} would start failing,{' '}
            {result.summary.fail_to_pass} would start passing, {result.summary.unchanged} unchanged.
          </Alert>
          {changed.length > 0 && (
            <Table striped mt="sm">
              <TableHead columns={['Tag', 'Change', 'Now', 'With this policy', 'Reasons']} />
              <Table.Tbody>
                {changed.map((tag) => (
                  <Table.Tr key={`${tag.tag}@${tag.image_digest}`}>
                    <Table.Td>{tag.tag}</Table.Td>
                    <Table.Td>
                      <Badge color={tag.change === 'pass_to_fail' ? 'red' : 'green'} variant="light">
                        {CHANGE_LABEL[tag.change]}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {tag.current.status} ({tag.current.final_action})
                    </Table.Td>
                    <Table.Td>
                      {tag.draft.status} ({tag.draft.final_action})
                    </Table.Td>
                    <Table.Td>
                      {tag.reasons.map((r) => (
                        <Text key={r.trigger_id} size="sm">
                          {r.gate}/{r.trigger}: {r.message}
                        </Text>
                      ))}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </section>
      )}
    </Stack>
  );
}
