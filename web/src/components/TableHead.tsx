/** A table's header row from its column names. */
import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

export function TableHead({ columns }: { columns: ReactNode[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((column, i) => (
          <Table.Th key={i}>{column}</Table.Th>
        ))}
      </Table.Tr>
    </Table.Thead>
  );
}
