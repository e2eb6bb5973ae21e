/**
 * Whose data a report reads: one account (the account endpoint, selected by the caller or x-service-account)
 * or every account (the administrators' global endpoint). Every report query takes a scope and applies it.
 */
import type { Knex } from 'knex';

export type ReportScope = { kind: 'account'; accountName: string } | { kind: 'global' };

/** Restricts a query to the scope's account; the global scope reads all. */
export function inScope<Q extends Knex.QueryBuilder>(q: Q, scope: ReportScope, column: string): Q {
  if (scope.kind === 'account') q.where(column, scope.accountName);
  return q;
}

/** What a page token is bound to besides the query itself. */
export function scopeKey(scope: ReportScope): string {
  return scope.kind === 'account' ? `account:${scope.accountName}` : 'global';
}
