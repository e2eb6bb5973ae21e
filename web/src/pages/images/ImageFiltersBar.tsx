/** Search and filters above the image list; every control is labelled and changes the server-side query. */
import { Group, Select, TextInput } from '@mantine/core';
import type { ImageFilters } from './imageQuery';

const ANY = 'any';
const ANALYSIS = [
  { value: ANY, label: 'Any' },
  { value: 'analyzed', label: 'Analyzed' },
  { value: 'analyzing', label: 'Analyzing' },
  { value: 'not_analyzed', label: 'Waiting' },
  { value: 'analysis_failed', label: 'Failed' },
];
const POLICY = [
  { value: ANY, label: 'Any' },
  { value: 'pass', label: 'Pass' },
  { value: 'fail', label: 'Fail' },
];
const KEV = [
  { value: ANY, label: 'Any' },
  { value: 'yes', label: 'Has known-exploited' },
  { value: 'no', label: 'None known-exploited' },
];
const SEVERITY = [
  { value: ANY, label: 'Any' },
  ...['Critical', 'High', 'Medium', 'Low', 'Negligible'].map((s) => ({ value: s, label: `${s} or above` })),
];

interface Props {
  search: string;
  onSearch(value: string): void;
  filters: ImageFilters;
  onChange(filters: ImageFilters): void;
}

export function ImageFiltersBar({ search, onSearch, filters, onChange }: Props) {
  const select = <K extends keyof ImageFilters>(key: K) => (value: string | null) => onChange({ ...filters, [key]: value && value !== ANY ? value : null });
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <TextInput
        label="Search"
        description="Tag, repository or digest"
        placeholder="e.g. nginx or sha256:ab12"
        w={320}
        value={search}
        onChange={(e) => onSearch(e.currentTarget.value)}
      />
      <Select label="Analysis status" data={ANALYSIS} value={filters.analysisStatus ?? ANY} onChange={select('analysisStatus')} w={160} allowDeselect={false} />
      <Select label="Policy result" data={POLICY} value={filters.policyStatus ?? ANY} onChange={select('policyStatus')} w={140} allowDeselect={false} />
      <Select label="Known exploited" data={KEV} value={filters.kev ?? ANY} onChange={select('kev')} w={210} allowDeselect={false} />
      <Select label="Severity" data={SEVERITY} value={filters.severity ?? ANY} onChange={select('severity')} w={180} allowDeselect={false} />
    </Group>
  );
}
