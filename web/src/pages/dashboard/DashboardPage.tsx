/** The daily overview: findings, policy, the trend, feed freshness and the analysis queue, each panel on its own call. */
import { SimpleGrid, Stack, Title } from '@mantine/core';
import { KnownExploitedPanel, PolicyPanel, SeverityPanel } from './FindingsPanels';
import { FeedsPanel, QueuePanel } from './SystemPanels';
import { TrendPanel } from './TrendPanel';

export function DashboardPage() {
  return (
    <Stack>
      <Title order={1}>Dashboard</Title>
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <SeverityPanel />
        <KnownExploitedPanel />
        <PolicyPanel />
      </SimpleGrid>
      <TrendPanel />
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <FeedsPanel />
        <QueuePanel />
      </SimpleGrid>
    </Stack>
  );
}
