/** The image's tags with their history, its metadata, analysis status and the Dockerfile when known. */
import { Code, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { data } from '../../api/client';
import { ApiError } from '../../api/errors';
import { useApi } from '../../components/SessionProvider';
import { LoadState } from './LoadState';
import { Tone } from './Tone';
import type { Image } from './types';
import { useLoad } from './useLoad';

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return 'unknown';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text>{value}</Text>
    </div>
  );
}

export function OverviewTab({ image }: { image: Image }) {
  const meta = image.image_content?.metadata ?? {};
  const tags = [...image.image_detail].sort((a, b) => Number(b.current) - Number(a.current) || b.tag_detected_at.localeCompare(a.tag_detected_at));
  return (
    <Stack gap="lg">
      <section aria-labelledby="image-metadata">
        <Title order={2} id="image-metadata" size="h3" mb="sm">
          Metadata
        </Title>
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          <Fact label="Distribution" value={meta.distro ? `${meta.distro} ${meta.distro_version ?? ''}`.trim() : 'unknown'} />
          <Fact label="Architecture" value={meta.arch ?? 'unknown'} />
          <Fact label="Size" value={formatBytes(meta.image_size)} />
          <Fact label="Layers" value={meta.layer_count === undefined ? 'unknown' : String(meta.layer_count)} />
          <Fact label="Analysis status" value={image.analysis_status.replace('_', ' ')} />
          <Fact label="Analyzed" value={when(image.analyzed_at)} />
          <Fact label="Added" value={when(image.created_at)} />
          <Fact label="Image id" value={image.image_id ?? 'unknown'} />
        </SimpleGrid>
        {image.analysis_status === 'analysis_failed' &&
          image.analysis_status_detail
            .filter((d) => d.to_status === 'analysis_failed' && d.detail)
            .map((d) => (
              <Text key={d.timestamp} c="red.9" mt="sm">
                {d.detail}
              </Text>
            ))}
      </section>
      <section aria-labelledby="image-tags">
        <Title order={2} id="image-tags" size="h3" mb="sm">
          Tags and tag history
        </Title>
        <Table aria-labelledby="image-tags" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Tag</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Seen on this image since</Table.Th>
              <Table.Th>Last updated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tags.map((t) => (
              <Table.Tr key={t.full_tag}>
                <Table.Td>{t.full_tag}</Table.Td>
                <Table.Td>
                  <Tone color={t.current ? 'green' : 'gray'}>
                    {t.current ? 'current' : 'moved to another image'}
                  </Tone>
                </Table.Td>
                <Table.Td>{when(t.tag_detected_at)}</Table.Td>
                <Table.Td>{when(t.last_updated)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </section>
      <Dockerfile image={image} />
    </Stack>
  );
}

function Dockerfile({ image }: { image: Image }) {
  const { api } = useApi();
  const mode = image.image_content?.metadata?.dockerfile_mode;
  const dockerfile = useLoad(async () => {
    if (image.analysis_status !== 'analyzed') return null;
    try {
      const answer = await data(
        api.rest.GET('/images/{image_digest}/metadata/{metadata_type}', { params: { path: { image_digest: image.image_digest, metadata_type: 'dockerfile' } } }),
      );
      return typeof answer.metadata === 'string' ? answer.metadata : null;
    } catch (error) {
      // No Dockerfile recorded for this image is an answer, not a failure.
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }, [api, image.image_digest, image.analysis_status]);
  return (
    <section aria-labelledby="image-dockerfile">
      <Group gap="sm" mb="sm">
        <Title order={2} id="image-dockerfile" size="h3">
          Dockerfile
        </Title>
        {mode && (
          <Tone color={mode === 'Actual' ? 'blue' : 'gray'}>
            {mode === 'Actual' ? 'as given' : 'reconstructed from the history'}
          </Tone>
        )}
      </Group>
      <LoadState loaded={{ ...dockerfile, data: dockerfile.loading ? null : (dockerfile.data ?? '') }} what="the Dockerfile">
        {(text) => (text ? <Code block>{text}</Code> : <Text>Not known for this image.</Text>)}
      </LoadState>
    </section>
  );
}
