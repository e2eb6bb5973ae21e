/** A placeholder for an area whose page is not built yet (replaced as each area lands). */
import { Stack, Text, Title } from '@mantine/core';

export function NotBuiltYet({ title }: { title: string }) {
  return (
    <Stack>
      <Title order={1}>{title}</Title>
      <Text>This page is not built yet.</Text>
    </Stack>
  );
}
