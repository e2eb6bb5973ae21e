/**
 * Pieces every administration sub-page uses: loading with the error kept for display, running an action with its
 * error shown, a client-side paged table for lists that can grow long, and time formatting.
 */
import { Alert, Button, Group, Pagination, Stack, Table, Text, Title } from '@mantine/core';
import { type FormEvent, type ReactNode, useCallback, useEffect, useState } from 'react';
import { describeError } from '../../api/errors';

export function ErrorAlert({ title, error }: { title: string; error: unknown }) {
  if (error == null) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      {describeError(error)}
    </Alert>
  );
}

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Loads once per change of `deps` and on reload(); a failure is kept (not thrown) for the page to show. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
    // The caller names what the load depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}

export interface Action {
  busy: boolean;
  error: unknown;
  /** Runs `work`; resolves true when it succeeded (its failure is kept in `error` for the page to show). */
  run(work: () => Promise<unknown>): Promise<boolean>;
  clear(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(null) };
}

/**
 * A creation form laid out in a row: its title (also the form's name), the action's error, the fields, and the
 * submit button, which goes at the end of `options` (a second row) when there is one.
 */
export function InlineForm({ title, action, errorTitle, submitLabel, onSubmit, options, children }: {
  title: string;
  action: Action;
  errorTitle: string;
  submitLabel: string;
  onSubmit(): unknown;
  options?: ReactNode;
  children: ReactNode;
}) {
  const submit = (
    <Button type="submit" loading={action.busy}>
      {submitLabel}
    </Button>
  );
  return (
    <form
      aria-label={title}
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        void onSubmit();
      }}
    >
      <Stack gap="xs">
        <Title order={3}>{title}</Title>
        <ErrorAlert title={errorTitle} error={action.error} />
        <Group align="end">
          {children}
          {!options && submit}
        </Group>
        {options && (
          <Group>
            {options}
            {submit}
          </Group>
        )}
      </Stack>
    </form>
  );
}

export interface Column<T> {
  header: string;
  cell(row: T): ReactNode;
}

const PAGE_SIZE = 25;

/** A table of rows paged in the browser (the list endpoints it shows answer whole lists). */
export function PagedTable<T>({ label, rows, columns, rowKey, empty }: { label: string; rows: T[]; columns: Column<T>[]; rowKey(row: T): string; empty: string }) {
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const current = Math.min(page, pages);
  const shown = rows.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE);
  if (rows.length === 0) return <Text c="dimmed">{empty}</Text>;
  return (
    <>
      <Table striped highlightOnHover aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.header}>{c.header}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {shown.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((c) => (
                <Table.Td key={c.header}>{c.cell(row)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {pages > 1 && (
        <Group justify="space-between">
          <Text size="sm">
            {rows.length} in all, page {current} of {pages}
          </Text>
          <Pagination
            total={pages}
            value={current}
            onChange={setPage}
            getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
            getControlProps={(control) => ({ 'aria-label': `${control[0].toUpperCase()}${control.slice(1)} page` })}
          />
        </Group>
      )}
    </>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
