/** A dashboard panel: a titled card that shows its own call's loading state or error, never another panel's. */
import { Card, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { ApiCall } from '../../api/use-api-call';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';

interface PanelProps<T> {
  title: string;
  /** What the panel loads, for the error message ("load the feeds"). */
  action: string;
  call: ApiCall<T>;
  /** A short note under the title (where the figures come from, how fresh they are). */
  note?: ReactNode;
  children(data: T): ReactNode;
}

export function Panel<T>({ title, action, call, note, children }: PanelProps<T>) {
  const id = `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <Card withBorder padding="md" component="section" aria-labelledby={id}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <Title order={2} size="h4" id={id}>
            {title}
          </Title>
          {call.loading && <Loader size="xs" role="status" aria-label={`Loading ${title}`} />}
        </Group>
        {note && (
          <Text size="sm" c="dimmed">
            {note}
          </Text>
        )}
        {call.error ? <ApiErrorAlert error={call.error} action={action} /> : call.data !== undefined && children(call.data)}
      </Stack>
    </Card>
  );
}

/** The panel's figures, as a description list (each Figure a dt/dd pair). */
export function Figures({ children, cols = 3 }: { children: ReactNode; cols?: number }) {
  return (
    <SimpleGrid component="dl" cols={cols} spacing="sm" m={0}>
      {children}
    </SimpleGrid>
  );
}

/** A labelled figure (a dt/dd pair) for the panels' counts. */
export function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div>
      <Text component="dt" size="sm" c="dimmed">
        {label}
      </Text>
      <Text component="dd" fw={700} size="xl" m={0}>
        {value}
      </Text>
    </div>
  );
}
