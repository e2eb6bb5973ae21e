/**
 * A table whose rows are virtualised (only the visible ones are in the DOM, so thousands of packages or files stay
 * fast) with sortable columns; rows are measured as they render, since long cells wrap. It stays a real <table>:
 * spacer rows stand in for the rows scrolled out of view.
 */
import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, useState } from 'react';

interface VirtualTableProps<T> {
  data: T[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns: ColumnDef<T, any>[];
  /** The table's accessible name. */
  label: string;
  height?: number;
  initialSorting?: SortingState;
  getRowId?: (row: T, index: number) => string;
}

const ROW_HEIGHT = 37;

export function VirtualTable<T>({ data, columns, label, height = 520, initialSorting = [], getRowId }: VirtualTableProps<T>) {
  const [sorting, setSorting] = useState<SortingState>(initialSorting);
  const table = useReactTable({
    data,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId,
  });
  const rows = table.getRowModel().rows;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const width = table.getVisibleLeafColumns().length;

  return (
    // A scrolling region must be reachable by keyboard (axe: scrollable-region-focusable).
    <div ref={scroller} className="vigil-table-scroller" style={{ maxHeight: height }} tabIndex={0} role="region" aria-label={`${label}, scrollable`}>
      <table className="vigil-table" aria-label={label} aria-rowcount={rows.length + 1}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const title = flexRender(header.column.columnDef.header, header.getContext());
                return (
                  <th key={header.id} aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined} style={{ width: header.getSize() }}>
                    {header.column.getCanSort() ? (
                      <button type="button" className="vigil-sort" onClick={header.column.getToggleSortingHandler()}>
                        {title}
                        <span aria-hidden="true">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}</span>
                      </button>
                    ) : (
                      title
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {before > 0 && (
            <tr aria-hidden="true">
              <td colSpan={width} style={{ height: before, padding: 0 }} />
            </tr>
          )}
          {items.map((item) => {
            const row = rows[item.index];
            return (
              <tr key={row.id} ref={virtualizer.measureElement} aria-rowindex={item.index + 2} data-index={item.index}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ))}
              </tr>
            );
          })}
          {after > 0 && (
            <tr aria-hidden="true">
              <td colSpan={width} style={{ height: after, padding: 0 }} />
            </tr>
          )}
        </tbody>
      </table>
      {rows.length === 0 && <p className="vigil-table-empty">Nothing to show.</p>}
    </div>
  );
}
