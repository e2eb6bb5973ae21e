/** The image's packages of every type with their licenses, in a virtualised table filtered by name and type. */
import { Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { LoadState } from './LoadState';
import type { Package } from './types';
import { useLoad } from './useLoad';
import { VirtualTable } from './VirtualTable';

/** The package content types the API lists by type (java and files have routes of their own shapes). */
const PACKAGE_TYPES = ['os', 'npm', 'gem', 'python', 'go', 'rust', 'nuget', 'composer'] as const;
type PackageContentType = (typeof PACKAGE_TYPES)[number];
const isPackageType = (t: string): t is PackageContentType => (PACKAGE_TYPES as readonly string[]).includes(t);

const column = createColumnHelper<Package>();
const COLUMNS = [
  column.accessor('package', { header: 'Name', size: 260 }),
  column.accessor('version', { header: 'Version' }),
  column.accessor('type', { header: 'Type' }),
  column.accessor((p) => p.licenses.join(', '), { id: 'licenses', header: 'Licenses' }),
  column.accessor('location', { header: 'Location', enableSorting: false }),
];

export function PackagesTab({ digest }: { digest: string }) {
  const { api } = useApi();
  const packages = useLoad(async () => {
    const types = (await data(api.rest.GET('/images/{image_digest}/content', { params: { path: { image_digest: digest } } }))).filter(isPackageType);
    const lists = await Promise.all(
      types.map((contentType) =>
        data(api.rest.GET('/images/{image_digest}/content/{content_type}', { params: { path: { image_digest: digest, content_type: contentType } } })),
      ),
    );
    return lists.flatMap((list) => list.content);
  }, [api, digest]);
  return (
    <LoadState loaded={packages} what="the packages">
      {(all) => <PackageTable packages={all} />}
    </LoadState>
  );
}

function PackageTable({ packages }: { packages: Package[] }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<string | null>(null);
  const types = useMemo(() => [...new Set(packages.map((p) => p.type))].sort(), [packages]);
  const shown = useMemo(() => {
    const needle = name.trim().toLowerCase();
    return packages.filter((p) => (!type || p.type === type) && (!needle || p.package.toLowerCase().includes(needle)));
  }, [packages, name, type]);
  return (
    <Stack>
      <Group align="flex-end">
        <TextInput label="Filter by name" value={name} onChange={(e) => setName(e.currentTarget.value)} w={280} />
        <Select label="Package type" placeholder="Every type" data={types} value={type} onChange={setType} clearable w={200} />
        <Text size="sm" aria-live="polite">
          {shown.length} of {packages.length} packages
        </Text>
      </Group>
      <VirtualTable data={shown} columns={COLUMNS} label="Packages" initialSorting={[{ id: 'package', desc: false }]} getRowId={(p) => `${p.type}:${p.location}:${p.package}:${p.version}`} />
    </Stack>
  );
}
