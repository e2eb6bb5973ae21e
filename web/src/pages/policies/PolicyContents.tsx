/** A policy document read-only: each rule set's rules (gate, trigger, parameters, action), allowlists, mappings. */
import { Badge, Code, Stack, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { TableHead } from '../../components/TableHead';
import type { Policy } from './policyTypes';

const ACTION_COLOR: Record<string, string> = { STOP: 'red', WARN: 'yellow', GO: 'green' };

function SimpleTable({ caption, head, rows }: { caption: string; head: string[]; rows: ReactNode[][] }) {
  if (rows.length === 0) return <Text size="sm">None.</Text>;
  return (
    <Table striped withTableBorder aria-label={caption}>
      <TableHead columns={head} />
      <Table.Tbody>
        {rows.map((cells, i) => (
          <Table.Tr key={i}>
            {cells.map((cell, j) => (
              <Table.Td key={j}>{cell}</Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function PolicyContents({ policy }: { policy: Policy }) {
  return (
    <Stack>
      {policy.rule_sets.map((set) => (
        <Stack key={set.id} gap="xs">
          <Title order={2} size="h3">
            Rule set: {set.name}
          </Title>
          <SimpleTable
            caption={`Rules of ${set.name}`}
            head={['Rule', 'Gate', 'Trigger', 'Parameters', 'Action']}
            rows={set.rules.map((rule) => [
              rule.id,
              rule.gate,
              rule.trigger,
              rule.params.length ? (
                <Stack gap={2}>
                  {rule.params.map((p) => (
                    <Code key={p.name}>
                      {p.name} = {p.value}
                    </Code>
                  ))}
                </Stack>
              ) : (
                '—'
              ),
              <Badge key="action" color={ACTION_COLOR[rule.action.toUpperCase()] ?? 'gray'} variant="light">
                {rule.action.toUpperCase()}
              </Badge>,
            ])}
          />
        </Stack>
      ))}
      <Title order={2} size="h3">
        Allowlists
      </Title>
      {(policy.allowlists ?? []).length === 0 && <Text size="sm">None.</Text>}
      {(policy.allowlists ?? []).map((list) => (
        <Stack key={list.id} gap="xs">
          <Title order={3} size="h4">
            Allowlist: {list.name}
          </Title>
          <SimpleTable
            caption={`Items of ${list.name}`}
            head={['Item', 'Gate', 'Trigger id', 'Expires']}
            rows={list.items.map((item) => [item.id, item.gate, item.trigger_id, item.expires_on ?? 'never'])}
          />
        </Stack>
      ))}
      <Title order={2} size="h3">
        Mappings
      </Title>
      <SimpleTable
        caption="Mappings"
        head={['Mapping', 'Registry', 'Repository', 'Image', 'Rule sets', 'Allowlists']}
        rows={policy.mappings.map((m) => [
          m.name,
          m.registry,
          m.repository,
          `${m.image.type}: ${m.image.value}`,
          m.rule_set_ids.join(', '),
          (m.allowlist_ids ?? []).join(', ') || '—',
        ])}
      />
    </Stack>
  );
}
