/**
 * A result's flat rows as a sortable table (@tanstack/react-table), 50 rows a screen with paging, since a
 * stored result page holds up to 1000 elements and each may give several rows.
 */
import { Group, Pagination, ScrollArea, Table, Text, UnstyledButton } from '@mantine/core';
import { type ColumnDef, flexRender, getCoreRowModel, getPaginationRowModel, getSortedRowModel, type SortingState, useReactTable } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { columnsOf, type FlatRow } from './flatten';

const ROWS_PER_SCREEN = 50;

export function ResultTable({ rows, caption }: { rows: FlatRow[]; caption: string }) {
  const columns = useMemo<ColumnDef<FlatRow>[]>(
    () => columnsOf(rows).map((key) => ({ id: key, header: key, accessorFn: (row) => row[key] ?? null, sortUndefined: 'last' })),
    [rows],
  );
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useReactTable({
    data: rows,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getPaginationRowModel: getPaginationRowModel(),
    initialState: { pagination: { pageSize: ROWS_PER_SCREEN } },
  });
  if (rows.length === 0) return <Text>No result rows.</Text>;
  const { pageIndex } = table.getState().pagination;
  return (
    <>
      <ScrollArea type="auto">
        <Table striped highlightOnHover withTableBorder captionSide="top" data-testid="result-table">
          <caption>{caption}</caption>
          <Table.Thead>
            {table.getHeaderGroups().map((group) => (
              <Table.Tr key={group.id}>
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  return (
                    <Table.Th key={header.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}>
                      <UnstyledButton onClick={header.column.getToggleSortingHandler()} fw={700} fz="sm">
                        {flexRender(header.column.columnDef.header, header.getContext())}
                        {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                      </UnstyledButton>
                    </Table.Th>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Thead>
          <Table.Tbody>
            {table.getRowModel().rows.map((row) => (
              <Table.Tr key={row.id}>
                {row.getVisibleCells().map((cell) => (
                  <Table.Td key={cell.id}>{String(cell.getValue() ?? '')}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      {table.getPageCount() > 1 && (
        <Group justify="space-between">
          <Text size="sm">
            Rows {pageIndex * ROWS_PER_SCREEN + 1}–{Math.min((pageIndex + 1) * ROWS_PER_SCREEN, rows.length)} of {rows.length}
          </Text>
          <Pagination
            total={table.getPageCount()}
            value={pageIndex + 1}
            onChange={(p) => table.setPageIndex(p - 1)}
            getControlProps={(control) => ({ 'aria-label': `${control} rows` })}
            getItemProps={(p) => ({ 'aria-label': `Rows page ${p}` })}
          />
        </Group>
      )}
    </>
  );
}
