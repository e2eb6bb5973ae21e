/**
 * The image's vulnerabilities: a chart by severity, filters (severity, fix available, KEV, text) and a sortable,
 * virtualised table with CVSS, EPSS, KEV, fix state and the fixed-in version.
 */
import { Anchor, Checkbox, Group, MultiSelect, Select, Stack, Text, TextInput } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { LoadState } from './LoadState';
import { Tone } from './Tone';
import { SeverityChart } from './SeverityChart';
import { SEVERITIES, type Severity, type Vulnerability } from './types';
import { useLoad } from './useLoad';
import { cvssScore, epssScore, fixState, matchesFilter, NO_FILTER, severityRank, type VulnerabilityFilter } from './vulnerability-facts';
import { VirtualTable } from './VirtualTable';

const column = createColumnHelper<Vulnerability>();
const COLUMNS = [
  column.accessor('vuln', {
    header: 'Vulnerability',
    size: 200,
    cell: (c) => (
      <Anchor href={c.row.original.url} target="_blank" rel="noreferrer" size="sm">
        {c.getValue()}
      </Anchor>
    ),
  }),
  column.accessor('package_name', { header: 'Package' }),
  column.accessor('package_version', { header: 'Version' }),
  column.accessor('severity', {
    header: 'Severity',
    sortingFn: (a, b) => severityRank(a.original.severity) - severityRank(b.original.severity),
    cell: (c) => <SeverityBadge severity={c.getValue()} />,
  }),
  column.accessor((v) => cvssScore(v), { id: 'cvss', header: 'CVSS', sortUndefined: 'last', cell: (c) => c.getValue()?.toFixed(1) ?? '—' }),
  column.accessor((v) => epssScore(v), { id: 'epss', header: 'EPSS', sortUndefined: 'last', cell: (c) => (c.getValue() === null ? '—' : `${((c.getValue() ?? 0) * 100).toFixed(2)}%`) }),
  column.accessor('is_kev', { header: 'KEV', cell: (c) => (c.getValue() ? <Tone color="red">KEV</Tone> : 'no') }),
  column.accessor((v) => fixState(v), { id: 'fix_state', header: 'Fix state' }),
  column.accessor((v) => (v.fix && v.fix !== 'None' ? v.fix : ''), { id: 'fixed_in', header: 'Fixed in' }),
  column.accessor((v) => v.annotation_status ?? '', { id: 'vex', header: 'VEX status' }),
];

const SEVERITY_BADGE: Record<Severity, string> = { Critical: 'red', High: 'orange', Medium: 'yellow', Low: 'blue', Negligible: 'gray', Unknown: 'gray' };

export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <Tone color={SEVERITY_BADGE[severity]}>
      {severity}
    </Tone>
  );
}

export function VulnerabilitiesTab({ digest }: { digest: string }) {
  const { api } = useApi();
  const [vendorOnly, setVendorOnly] = useState(true);
  const vulns = useLoad(
    () => data(api.rest.GET('/images/{image_digest}/vuln/{vuln_type}', { params: { path: { image_digest: digest, vuln_type: 'all' }, query: { vendor_only: vendorOnly } } })),
    [api, digest, vendorOnly],
  );
  return (
    <Stack>
      <Checkbox label="Leave out vulnerabilities the distribution will not fix" checked={vendorOnly} onChange={(e) => setVendorOnly(e.currentTarget.checked)} />
      <LoadState loaded={vulns} what="the vulnerabilities">
        {(answer) => <VulnerabilityTable vulnerabilities={answer.vulnerabilities} />}
      </LoadState>
    </Stack>
  );
}

function VulnerabilityTable({ vulnerabilities }: { vulnerabilities: Vulnerability[] }) {
  const [filter, setFilter] = useState<VulnerabilityFilter>(NO_FILTER);
  const shown = useMemo(() => vulnerabilities.filter((v) => matchesFilter(v, filter)), [vulnerabilities, filter]);
  const set = (change: Partial<VulnerabilityFilter>) => setFilter((f) => ({ ...f, ...change }));
  return (
    <Stack>
      <SeverityChart vulnerabilities={vulnerabilities} />
      <Group align="flex-end">
        <TextInput label="Search vulnerabilities" description="Id, alias or package" value={filter.text} onChange={(e) => set({ text: e.currentTarget.value })} w={240} />
        <MultiSelect label="Severity" placeholder="Any severity" data={SEVERITIES} value={filter.severities} onChange={(v) => set({ severities: v as Severity[] })} clearable w={260} />
        <Select
          label="Fix available"
          data={[
            { value: 'yes', label: 'Fix available' },
            { value: 'no', label: 'No fix' },
          ]}
          placeholder="Either"
          value={filter.fixAvailable}
          onChange={(v) => set({ fixAvailable: v as VulnerabilityFilter['fixAvailable'] })}
          clearable
          w={160}
        />
        <Checkbox label="Known exploited (KEV) only" checked={filter.kevOnly} onChange={(e) => set({ kevOnly: e.currentTarget.checked })} mb={8} />
      </Group>
      <Text size="sm" aria-live="polite" data-testid="vulnerability-count">
        {shown.length} of {vulnerabilities.length} vulnerabilities
      </Text>
      <VirtualTable
        data={shown}
        columns={COLUMNS}
        label="Vulnerabilities"
        initialSorting={[{ id: 'severity', desc: false }]}
        getRowId={(v) => `${v.vuln}:${v.package_type}:${v.package_name}:${v.package_version}:${v.package_path ?? ''}`}
      />
    </Stack>
  );
}
