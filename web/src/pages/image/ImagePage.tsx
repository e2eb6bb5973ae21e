/**
 * One image, reached from the images list by digest: its overview, packages, files, vulnerabilities, policy
 * evaluation and VEX annotations, one tab each (the tab is in the URL, so a tab can be linked to and reloaded).
 */
import { Anchor, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { FilesTab } from './FilesTab';
import { Tone } from './Tone';
import { LoadState } from './LoadState';
import { OverviewTab } from './OverviewTab';
import { PackagesTab } from './PackagesTab';
import { PolicyTab } from './PolicyTab';
import { useLoad } from './useLoad';
import { VexTab } from './VexTab';
import { VulnerabilitiesTab } from './VulnerabilitiesTab';
import type { Image } from './types';

const TABS = [
  { value: 'overview', label: 'Overview' },
  { value: 'packages', label: 'Packages' },
  { value: 'files', label: 'Files' },
  { value: 'vulnerabilities', label: 'Vulnerabilities' },
  { value: 'policy', label: 'Policy' },
  { value: 'vex', label: 'VEX and SBOM' },
] as const;

/** The name the page goes by: its first current tag, else any tag it had, else the digest. */
export function imageName(image: Image): string {
  const current = image.image_detail.find((d) => d.current) ?? image.image_detail[0];
  return current?.full_tag ?? image.image_digest;
}

function statusColor(status: Image['analysis_status']): string {
  return status === 'analyzed' ? 'green' : status === 'analysis_failed' ? 'red' : 'yellow';
}

export function ImagePage() {
  const { digest = '' } = useParams();
  const { api } = useApi();
  const [search, setSearch] = useSearchParams();
  const tab = TABS.some((t) => t.value === search.get('tab')) ? (search.get('tab') as string) : 'overview';
  const image = useLoad(() => data(api.rest.GET('/images/{image_digest}', { params: { path: { image_digest: digest } } })), [api, digest]);

  return (
    <Stack>
      <Anchor component={Link} to="/images" size="sm">
        Back to the images
      </Anchor>
      {image.error && (
        <Title order={1} size="h2">
          Image {digest}
        </Title>
      )}
      <LoadState loaded={image} what="the image">
        {(img) => {
          const analyzed = img.analysis_status === 'analyzed';
          return (
            <>
              <Stack gap={4}>
                <Title order={1}>{imageName(img)}</Title>
                <Group gap="sm">
                  <Text size="sm" ff="monospace">
                    {img.image_digest}
                  </Text>
                  <Tone color={statusColor(img.analysis_status)}>
                    {img.analysis_status.replace('_', ' ')}
                  </Tone>
                </Group>
              </Stack>
              <Tabs value={tab} onChange={(next) => next && setSearch({ tab: next }, { replace: true })} keepMounted={false}>
                <Tabs.List aria-label="Image sections">
                  {TABS.map((t) => (
                    <Tabs.Tab key={t.value} value={t.value}>
                      {t.label}
                    </Tabs.Tab>
                  ))}
                </Tabs.List>
                <Tabs.Panel value="overview" pt="md">
                  <OverviewTab image={img} />
                </Tabs.Panel>
                {TABS.slice(1).map((t) => (
                  <Tabs.Panel key={t.value} value={t.value} pt="md">
                    {analyzed ? <AnalyzedTab tab={t.value} image={img} /> : <Text>Available once the image is analyzed (now: {img.analysis_status.replace('_', ' ')}).</Text>}
                  </Tabs.Panel>
                ))}
              </Tabs>
            </>
          );
        }}
      </LoadState>
    </Stack>
  );
}

function AnalyzedTab({ tab, image }: { tab: string; image: Image }) {
  switch (tab) {
    case 'packages':
      return <PackagesTab digest={image.image_digest} />;
    case 'files':
      return <FilesTab digest={image.image_digest} />;
    case 'vulnerabilities':
      return <VulnerabilitiesTab digest={image.image_digest} />;
    case 'policy':
      return <PolicyTab image={image} />;
    default:
      return <VexTab digest={image.image_digest} />;
  }
}
