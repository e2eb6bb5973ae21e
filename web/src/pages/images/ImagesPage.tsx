/**
 * The image list: search and filters, sorting and paging done by the server (GET /v2/summaries/image-tags, one
 * page of current tags at a time, so 10,000+ images cost one page), and adding images with their progress.
 */
import { Alert, Group, Loader, Pagination, Stack, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useEffect, useState } from 'react';
import type { components } from '../../../../generated/openapi-types';
import { data } from '../../api/client';
import { describeError } from '../../api/errors';
import { useApi } from '../../components/SessionProvider';
import { AddImage } from './AddImage';
import { ImageFiltersBar } from './ImageFiltersBar';
import { ImageTable } from './ImageTable';
import { type ImageFilters, type ImageListQuery, NO_FILTERS, PAGE_SIZE, type SortColumn, toApiQuery } from './imageQuery';

type Page = components['schemas']['AnchoreImageTagSummaryList'];

export function ImagesPage() {
  const { api } = useApi();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search, 250);
  const [filters, setFilters] = useState<ImageFilters>(NO_FILTERS);
  const [sort, setSort] = useState<{ sort: SortColumn; order: 'asc' | 'desc' }>({ sort: 'tag_detected_at', order: 'desc' });
  const [page, setPage] = useState(1);
  const [result, setResult] = useState<Page | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [reloads, setReloads] = useState(0);

  const query: ImageListQuery = { filters: { ...filters, search: debouncedSearch }, ...sort, page };
  const key = JSON.stringify(query);
  useEffect(() => {
    let live = true;
    setLoading(true);
    data(api.rest.GET('/summaries/image-tags', { params: { query: toApiQuery(JSON.parse(key) as ImageListQuery) } })).then(
      (next) => {
        if (!live) return;
        setResult(next);
        setError(null);
        setLoading(false);
      },
      (failure) => {
        if (!live) return;
        setError(describeError(failure));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [api, key, reloads]);

  // A filter or sort change starts again at the first page.
  const changeFilters = (next: ImageFilters) => {
    setFilters(next);
    setPage(1);
  };
  const changeSearch = (next: string) => {
    setSearch(next);
    setPage(1);
  };
  const changeSort = (column: SortColumn) => {
    setSort((s) => ({ sort: column, order: s.sort === column && s.order === 'desc' ? 'asc' : 'desc' }));
    setPage(1);
  };
  const reload = useCallback(() => setReloads((n) => n + 1), []);
  const pages = result ? Math.max(1, Math.ceil(result.total_rows / PAGE_SIZE)) : 1;

  return (
    <Stack>
      <Title order={1}>Images</Title>
      <AddImage onAnalysisEnded={reload} />
      <ImageFiltersBar search={search} onSearch={changeSearch} filters={filters} onChange={changeFilters} />
      {error && (
        <Alert color="red" role="alert" title="Could not list the images">
          {error}
        </Alert>
      )}
      <Group justify="space-between">
        <Text size="sm" aria-live="polite" data-testid="image-count">
          {result ? `${result.total_rows.toLocaleString('en')} tags` : ' '}
        </Text>
        {loading && <Loader size="sm" aria-label="Loading images" />}
      </Group>
      {result && <ImageTable rows={result.items} sort={sort.sort} order={sort.order} onSort={changeSort} />}
      {result && result.total_rows === 0 && <Text>No images match.</Text>}
      {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} getControlProps={(c) => ({ 'aria-label': `${c} page` })} getItemProps={(p) => ({ 'aria-label': `Page ${p}` })} />}
    </Stack>
  );
}
