/**
 * Scheduled queries as stored (scheduled_queries). A query belongs to a scope: an account's queries are created
 * and seen on the account endpoint, global ones (scope 'global', owned by the creating administrator's account)
 * only on the administrators' global endpoint. Executions and result pages are in ./executions.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { toBool, type Db } from '../../db/index.js';
import { NotFoundError } from '../../errors.js';
import { nowIso } from '../../util/time.js';
import type { Page, PageTokens } from '../paging.js';
import { scopeKey, type ReportScope } from '../scope.js';
import { nextRunAt } from './cron.js';

export interface ScheduledQueryRecord {
  uuid: string;
  /** account: created on the account endpoint; global: on the administrators' global endpoint. */
  scope: 'account' | 'global';
  accountName: string;
  name: string;
  description: string | null;
  cronSchedule: string;
  query: string;
  variables: Record<string, unknown>;
  enabled: boolean;
  nextRunAt: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

interface ScheduledQueryRow {
  uuid: string;
  scope: 'account' | 'global';
  account_name: string;
  name: string;
  description: string | null;
  cron_schedule: string;
  query: string;
  variables: string;
  enabled: boolean | number;
  next_run_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** What a client sets; checked by ./validation.ts before it gets here. */
export interface ScheduledQueryInput {
  name: string;
  description: string | null;
  cronSchedule: string;
  query: string;
  variables: Record<string, unknown>;
  enabled: boolean;
}

function toRecord(row: ScheduledQueryRow): ScheduledQueryRecord {
  return {
    uuid: row.uuid,
    scope: row.scope,
    accountName: row.account_name,
    name: row.name,
    description: row.description,
    cronSchedule: row.cron_schedule,
    query: row.query,
    variables: JSON.parse(row.variables) as Record<string, unknown>,
    enabled: toBool(row.enabled),
    nextRunAt: row.next_run_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The queries a scope sees: the account's own on the account endpoint, the global ones on the global endpoint. */
function ownedBy(db: Db, scope: ReportScope): Knex.QueryBuilder {
  const q = db('scheduled_queries');
  return scope.kind === 'account' ? q.where({ scope: 'account', account_name: scope.accountName }) : q.where({ scope: 'global' });
}

const scheduledRun = (cronSchedule: string, enabled: boolean) => (enabled ? nextRunAt(cronSchedule) : null);

export async function createScheduledQuery(
  db: Db,
  scope: ReportScope,
  owner: { accountName: string; createdBy: string },
  input: ScheduledQueryInput,
): Promise<ScheduledQueryRecord> {
  const now = nowIso();
  const row: ScheduledQueryRow = {
    uuid: randomUUID(),
    scope: scope.kind,
    account_name: scope.kind === 'account' ? scope.accountName : owner.accountName,
    name: input.name,
    description: input.description,
    cron_schedule: input.cronSchedule,
    query: input.query,
    variables: JSON.stringify(input.variables),
    enabled: input.enabled,
    next_run_at: scheduledRun(input.cronSchedule, input.enabled),
    created_by: owner.createdBy,
    created_at: now,
    updated_at: now,
  };
  await db('scheduled_queries').insert(row);
  return toRecord(row);
}

export async function findScheduledQuery(db: Db, scope: ReportScope, uuid: string): Promise<ScheduledQueryRecord | undefined> {
  const row = (await ownedBy(db, scope).where({ uuid }).first()) as ScheduledQueryRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** The query, or NotFoundError; another scope's query is not found either, so none is ever revealed. */
export async function getScheduledQuery(db: Db, scope: ReportScope, uuid: string): Promise<ScheduledQueryRecord> {
  const found = await findScheduledQuery(db, scope, uuid);
  if (!found) throw new NotFoundError(`scheduled query '${uuid}' does not exist`, { uuid });
  return found;
}

/** The query by uuid whatever its scope, for the scheduler and the job that runs it. */
export async function loadScheduledQuery(db: Db, uuid: string): Promise<ScheduledQueryRecord | undefined> {
  const row = (await db('scheduled_queries').where({ uuid }).first()) as ScheduledQueryRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** A page of the scope's queries, oldest first; keyset on (created_at, uuid). */
export async function listScheduledQueries(
  db: Db,
  tokens: PageTokens,
  scope: ReportScope,
  page: { limit: number; nextToken?: string | null },
): Promise<Page<ScheduledQueryRecord>> {
  const fingerprint = { report: 'scheduledQueries', scope: scopeKey(scope) };
  const after = tokens.decode(fingerprint, page.nextToken);
  const q = ownedBy(db, scope)
    .orderBy([{ column: 'created_at' }, { column: 'uuid' }])
    .limit(page.limit + 1);
  if (after) q.andWhere((w) => w.where('created_at', '>', after[0]).orWhere((eq) => eq.where('created_at', after[0]).andWhere('uuid', '>', after[1])));
  const rows = (await q) as ScheduledQueryRow[];
  return tokens.page(fingerprint, rows, page.limit, (r) => [r.created_at, r.uuid], (shown) => shown.map(toRecord));
}

/**
 * Applies the given changes. The next run is recomputed only when the schedule or the enabled state changes,
 * so renaming a query does not move its next run.
 */
export async function updateScheduledQuery(db: Db, scope: ReportScope, uuid: string, changes: Partial<ScheduledQueryInput>): Promise<ScheduledQueryRecord> {
  const current = await getScheduledQuery(db, scope, uuid);
  const next = { ...current, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) } as ScheduledQueryRecord;
  const rescheduled = next.cronSchedule !== current.cronSchedule || next.enabled !== current.enabled;
  const updated = {
    name: next.name,
    description: next.description,
    cron_schedule: next.cronSchedule,
    query: next.query,
    variables: JSON.stringify(next.variables),
    enabled: next.enabled,
    next_run_at: rescheduled ? scheduledRun(next.cronSchedule, next.enabled) : current.nextRunAt,
    updated_at: nowIso(),
  };
  const count = await ownedBy(db, scope).where({ uuid }).update(updated);
  if (count === 0) throw new NotFoundError(`scheduled query '${uuid}' does not exist`, { uuid });
  return { ...next, nextRunAt: updated.next_run_at, updatedAt: updated.updated_at };
}

/** Deletes the query with its executions and their stored results (foreign keys cascade). */
export async function deleteScheduledQuery(db: Db, scope: ReportScope, uuid: string): Promise<void> {
  const count = await ownedBy(db, scope).where({ uuid }).delete();
  if (count === 0) throw new NotFoundError(`scheduled query '${uuid}' does not exist`, { uuid });
}

// ------------------------------------------------------------------------------------------ for the scheduler

/** Enabled queries whose next run is due at `now`, with the due value a claim compares against. */
export async function dueScheduledQueries(db: Db, now: string): Promise<{ uuid: string; nextRunAt: string; cronSchedule: string }[]> {
  const rows = await db('scheduled_queries')
    .where({ enabled: true })
    .andWhere('next_run_at', '<=', now)
    .orderBy('next_run_at')
    .select('uuid', 'next_run_at', 'cron_schedule');
  return rows.map((r: { uuid: string; next_run_at: string; cron_schedule: string }) => ({ uuid: r.uuid, nextRunAt: r.next_run_at, cronSchedule: r.cron_schedule }));
}

/** The earliest next run of any enabled query, or null when none is scheduled. */
export async function earliestScheduledRun(db: Db): Promise<string | null> {
  const row = await db('scheduled_queries').where({ enabled: true }).whereNotNull('next_run_at').min({ next: 'next_run_at' }).first();
  return (row?.next as string | null | undefined) ?? null;
}

/**
 * Claims the run due at `due` by moving next_run_at on to `following`, only if it still holds `due` (a
 * compare-and-set): of several nodes claiming the same run, exactly one update succeeds.
 */
export async function claimScheduledRun(db: Db, uuid: string, due: string, following: string | null): Promise<boolean> {
  const count = await db('scheduled_queries').where({ uuid, enabled: true, next_run_at: due }).update({ next_run_at: following });
  return count === 1;
}
