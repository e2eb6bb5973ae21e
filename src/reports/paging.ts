/**
 * Report paging: page sizes and keyset page tokens. A token carries the sort key of the last row of a page and
 * a fingerprint of the query it belongs to (report kind, filter, scope), signed with an HMAC: a client can pass
 * it back but cannot forge or edit one, and a token from another query is refused instead of silently
 * returning the wrong rows. Keysets (never offsets) keep pages stable while rows are inserted concurrently.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ReportInputError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export type SortKey = (string | number)[];

export interface Page<T> {
  results: T[];
  pageInfo: { nextToken: string | null; count: number };
}

export function pageSize(limit: number | null | undefined): number {
  if (limit === undefined || limit === null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw new ReportInputError(`limit must be between 1 and ${MAX_PAGE_SIZE}; got ${limit}`, 'limit');
  return limit;
}

export class PageTokens {
  constructor(private readonly key: Buffer) {}

  private fingerprint(query: unknown): string {
    return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 16);
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url').slice(0, 22);
  }

  encode(query: unknown, key: SortKey): string {
    const body = Buffer.from(JSON.stringify({ q: this.fingerprint(query), k: key })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The sort key to continue after, or null for the first page. */
  decode(query: unknown, token: string | null | undefined): SortKey | null {
    if (token === undefined || token === null) return null;
    const [body, mac, extra] = token.split('.');
    const expected = body ? this.sign(body) : '';
    if (!body || !mac || extra !== undefined || mac.length !== expected.length || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected)))
      throw new ReportInputError('nextToken is not a token this service issued (it was altered or truncated)', 'nextToken');
    const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { q: string; k: SortKey };
    if (parsed.q !== this.fingerprint(query))
      throw new ReportInputError('nextToken belongs to a different query or filter; repeat the query that returned it', 'nextToken');
    return parsed.k;
  }

  /** Slices `limit + 1` fetched keyed rows into a page, issuing a token when there is more. */
  page<R, T>(query: unknown, rows: R[], limit: number, keyOf: (row: R) => SortKey, results: (rows: R[]) => T[]): Page<T> {
    const more = rows.length > limit;
    const shown = more ? rows.slice(0, limit) : rows;
    const out = results(shown);
    return { results: out, pageInfo: { nextToken: more ? this.encode(query, keyOf(shown[shown.length - 1])) : null, count: out.length } };
  }
}
