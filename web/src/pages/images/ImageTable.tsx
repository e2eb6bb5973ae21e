/**
 * One page of the image list as a table: columns sorted on the server (the header buttons), rows virtualised
 * (only those in view are in the DOM, spacer rows keep the scroll height), so a page of up to 1,000 rows stays
 * cheap. Tags link to the image's page.
 */
import { Anchor, Badge, Table, Text, UnstyledButton } from '@mantine/core';
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { Link } from 'react-router-dom';
import type { components } from '../../../../generated/openapi-types';
import type { SortColumn } from './imageQuery';

type Row = components['schemas']['AnchoreImageTagSummary'];

const STATUS_COLOR: Record<string, string> = { analyzed: 'green', analyzing: 'blue', not_analyzed: 'gray', analysis_failed: 'red' };
const STATUS_LABEL: Record<string, string> = { analyzed: 'Analyzed', analyzing: 'Analyzing', not_analyzed: 'Waiting', analysis_failed: 'Failed' };
const ROW_HEIGHT = 41;

const when = (epoch?: number) => (epoch ? new Date(epoch * 1000).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—');

const COLUMNS: (ColumnDef<Row> & { sort?: SortColumn })[] = [
  {
    id: 'full_tag',
    sort: 'full_tag',
    header: 'Tag',
    cell: ({ row }) => (
      <Anchor component={Link} to={`/images/${row.original.image_digest}`}>
        {row.original.full_tag}
      </Anchor>
    ),
  },
  {
    id: 'image_digest',
    header: 'Digest',
    cell: ({ row }) => (
      <Text size="sm" ff="monospace" title={row.original.image_digest}>
        {row.original.image_digest.slice(0, 19)}…
      </Text>
    ),
  },
  {
    id: 'analysis_status',
    sort: 'analysis_status',
    header: 'Analysis',
    cell: ({ row }) => (
      <Badge color={STATUS_COLOR[row.original.analysis_status] ?? 'gray'} variant="light">
        {STATUS_LABEL[row.original.analysis_status] ?? row.original.analysis_status}
      </Badge>
    ),
  },
  { id: 'analyzed_at', sort: 'analyzed_at', header: 'Analyzed', cell: ({ row }) => when(row.original.analyzed_at) },
  { id: 'tag_detected_at', sort: 'tag_detected_at', header: 'Tag seen', cell: ({ row }) => when(row.original.tag_detected_at) },
];

interface Props {
  rows: Row[];
  sort: SortColumn;
  order: 'asc' | 'desc';
  onSort(column: SortColumn): void;
}

export function ImageTable({ rows, sort, order, onSort }: Props) {
  const table = useReactTable({ data: rows, columns: COLUMNS, getCoreRowModel: getCoreRowModel(), manualSorting: true, manualPagination: true });
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = virtualizer.getVirtualItems();
  const top = items.length ? items[0].start : 0;
  const bottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const tableRows = table.getRowModel().rows;

  return (
    <div ref={scroller} style={{ maxHeight: 'calc(100vh - 330px)', minHeight: 200, overflow: 'auto' }} tabIndex={0} role="region" aria-label="Image list">
      <Table stickyHeader striped highlightOnHover verticalSpacing={8} aria-rowcount={rows.length + 1}>
        <Table.Thead>
          {table.getHeaderGroups().map((group) => (
            <Table.Tr key={group.id}>
              {group.headers.map((header) => {
                const column = COLUMNS.find((c) => c.id === header.column.id);
                const active = column?.sort === sort;
                return (
                  <Table.Th key={header.id} aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : column?.sort ? 'none' : undefined}>
                    {column?.sort ? (
                      <UnstyledButton onClick={() => onSort(column.sort!)} fw={700} fz="sm">
                        {flexRender(header.column.columnDef.header, header.getContext())} {active ? (order === 'asc' ? '▲' : '▼') : ''}
                      </UnstyledButton>
                    ) : (
                      flexRender(header.column.columnDef.header, header.getContext())
                    )}
                  </Table.Th>
                );
              })}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {top > 0 && <tr aria-hidden="true" style={{ height: top }} />}
          {items.map((item) => {
            const row = tableRows[item.index];
            return (
              <Table.Tr key={row.id} style={{ height: ROW_HEIGHT }} aria-rowindex={item.index + 2}>
                {row.getVisibleCells().map((cell) => (
                  <Table.Td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</Table.Td>
                ))}
              </Table.Tr>
            );
          })}
          {bottom > 0 && <tr aria-hidden="true" style={{ height: bottom }} />}
        </Table.Tbody>
      </Table>
    </div>
  );
}
