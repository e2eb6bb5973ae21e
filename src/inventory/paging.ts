/** Page/page_size paging of the runtime inventory lists, with the total so clients can show progress. */
import type { Knex } from 'knex';

export interface PageRequest {
  /** From 1. */
  page: number;
  pageSize: number;
}

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  nextPage: boolean;
  totalCount: number;
}

/** Reads one page of `query` in `order` (which must be total, so pages neither repeat nor skip rows). */
export async function readPage<T>(query: Knex.QueryBuilder, order: readonly string[], req: PageRequest): Promise<Page<T>> {
  const [{ n }] = await query.clone().clearSelect().clearOrder().count<{ n: number | string }[]>({ n: '*' });
  const totalCount = Number(n);
  const items: T[] = await query
    .clone()
    .orderBy(order.map((column) => ({ column })))
    .offset((req.page - 1) * req.pageSize)
    .limit(req.pageSize);
  return { items, page: req.page, pageSize: req.pageSize, nextPage: req.page * req.pageSize < totalCount, totalCount };
}
