/** Which events a configuration is sent: its selectors, adding and removing them. */
import { Button, Code, Group, Select, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { TableHead } from '../../components/TableHead';
import { useAsyncData } from '../../components/useAsyncData';
import type { notificationApi, Selector } from './notificationApi';

type Level = Selector['event']['level'];

export function SelectorsPanel({ calls, uuid }: { calls: ReturnType<typeof notificationApi>; uuid: string }) {
  const selectors = useAsyncData(() => calls.selectors(uuid), [calls, uuid]);
  const [type, setType] = useState('user.*');
  const [level, setLevel] = useState<Level>('*');
  const [resourceType, setResourceType] = useState('*');
  const [error, setError] = useState<unknown>();

  async function act(action: () => Promise<unknown>) {
    setError(undefined);
    try {
      await action();
      selectors.reload();
    } catch (failure) {
      setError(failure);
    }
  }

  function add(event: FormEvent) {
    event.preventDefault();
    void act(() => calls.addSelector(uuid, { scope: 'account', event: { type, level, resource_type: resourceType } }));
  }

  return (
    <Stack gap="sm">
      <Title order={2}>Events sent</Title>
      <ApiErrorAlert error={selectors.error ?? error} title="Selectors" />
      {selectors.data && selectors.data.length === 0 && <Text size="sm">No selectors: this configuration is sent no events (test sends still work).</Text>}
      {selectors.data && selectors.data.length > 0 && (
        <Table withTableBorder aria-label="Selectors">
          <TableHead columns={['Event type', 'Level', 'Resource type', 'Scope', <VisuallyHidden key="actions">Actions</VisuallyHidden>]} />
          <Table.Tbody>
            {selectors.data.map((s) => (
              <Table.Tr key={s.uuid}>
                <Table.Td>
                  <Code>{s.event.type}</Code>
                </Table.Td>
                <Table.Td>{s.event.level}</Table.Td>
                <Table.Td>{s.event.resource_type}</Table.Td>
                <Table.Td>{s.scope}</Table.Td>
                <Table.Td>
                  <Button size="xs" variant="default" onClick={() => void act(() => calls.removeSelector(uuid, s.uuid ?? ''))}>
                    Remove selector {s.event.type}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <form onSubmit={add} aria-label="Add a selector">
        <Group align="flex-end">
          <TextInput label="Event type pattern" description="* matches any run of characters" value={type} onChange={(e) => setType(e.currentTarget.value)} required />
          <Select label="Event level" data={['*', 'info', 'error']} value={level} onChange={(v) => v && setLevel(v as Level)} allowDeselect={false} w={120} />
          <TextInput label="Event resource type" value={resourceType} onChange={(e) => setResourceType(e.currentTarget.value)} required w={180} />
          <Button type="submit">Add selector</Button>
        </Group>
      </form>
    </Stack>
  );
}
