/** The image's files, one server page at a time (an image may hold millions), each page virtualised. */
import { Button, Group, Stack, Text } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useState } from 'react';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { LoadState } from './LoadState';
import { formatBytes } from './OverviewTab';
import type { FileEntry } from './types';
import { useLoad } from './useLoad';
import { VirtualTable } from './VirtualTable';

const PAGE_SIZE = 1000;
const column = createColumnHelper<FileEntry>();
const COLUMNS = [
  column.accessor('filename', { header: 'Path', size: 420 }),
  column.accessor('type', { header: 'Type' }),
  column.accessor('size', { header: 'Size', cell: (c) => formatBytes(c.getValue()) }),
  column.accessor('mode', { header: 'Mode' }),
  column.accessor((f) => `${f.uid}:${f.gid}`, { id: 'owner', header: 'Owner (uid:gid)' }),
  column.accessor((f) => f.linkdest ?? '', { id: 'linkdest', header: 'Link target' }),
];

export function FilesTab({ digest }: { digest: string }) {
  const { api } = useApi();
  const [page, setPage] = useState(1);
  const files = useLoad(
    () => data(api.rest.GET('/images/{image_digest}/content/files', { params: { path: { image_digest: digest }, query: { page: String(page), limit: PAGE_SIZE } } })),
    [api, digest, page],
  );
  return (
    <LoadState loaded={files} what="the files">
      {(answer) => {
        const total = answer.total_count ?? answer.content.length;
        const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
        return (
          <Stack>
            <Group>
              <Button variant="default" size="xs" disabled={page <= 1 || files.loading} onClick={() => setPage(page - 1)}>
                Previous page
              </Button>
              <Text size="sm" aria-live="polite">
                Page {page} of {pages} ({total} files)
              </Text>
              <Button variant="default" size="xs" disabled={!answer.next_page || files.loading} onClick={() => setPage(Number(answer.next_page))}>
                Next page
              </Button>
            </Group>
            <VirtualTable data={answer.content} columns={COLUMNS} label="Files" getRowId={(f) => f.filename} />
          </Stack>
        );
      }}
    </LoadState>
  );
}
