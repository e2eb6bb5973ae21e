/**
 * Executions of scheduled queries (scheduled_query_executions): queued → running → complete | failed. A result
 * is only ever read from a complete execution; a failed one keeps no pages (./result-pages.ts holds them).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/index.js';
import { nowIso } from '../../util/time.js';
import type { ReportScope } from '../scope.js';
import { deleteResultPages } from './result-pages.js';
import type { ScheduledQueryRecord } from './store.js';

export type ExecutionStatus = 'queued' | 'running' | 'complete' | 'failed';
/** schedule: started by the scheduler on the query's cron; manual: by executeScheduledQuery(Async). */
export type ExecutionTrigger = 'schedule' | 'manual';

/** Executions kept per query; older finished ones are deleted with their results. */
export const EXECUTIONS_KEPT_PER_QUERY = 100;

export interface ExecutionRecord {
  uuid: string;
  queryUuid: string;
  accountName: string;
  scope: 'account' | 'global';
  trigger: ExecutionTrigger;
  status: ExecutionStatus;
  /** The report kind (root field) the result is keyed by; known once the run has started. */
  reportKind: string | null;
  resultCount: number;
  pageCount: number;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

interface ExecutionRow {
  uuid: string;
  query_uuid: string;
  account_name: string;
  scope: 'account' | 'global';
  trigger: ExecutionTrigger;
  status: ExecutionStatus;
  report_kind: string | null;
  result_count: number;
  page_count: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

function toRecord(row: ExecutionRow): ExecutionRecord {
  return {
    uuid: row.uuid,
    queryUuid: row.query_uuid,
    accountName: row.account_name,
    scope: row.scope,
    trigger: row.trigger,
    status: row.status,
    reportKind: row.report_kind,
    resultCount: Number(row.result_count),
    pageCount: Number(row.page_count),
    error: row.error,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** A new queued execution of `query`. */
export async function insertExecution(db: Db, query: ScheduledQueryRecord, trigger: ExecutionTrigger): Promise<ExecutionRecord> {
  const row: ExecutionRow = {
    uuid: randomUUID(),
    query_uuid: query.uuid,
    account_name: query.accountName,
    scope: query.scope,
    trigger,
    status: 'queued',
    report_kind: null,
    result_count: 0,
    page_count: 0,
    error: null,
    created_at: nowIso(),
    started_at: null,
    finished_at: null,
  };
  await db('scheduled_query_executions').insert(row);
  return toRecord(row);
}

export async function getExecution(db: Db, uuid: string): Promise<ExecutionRecord | undefined> {
  const row = (await db('scheduled_query_executions').where({ uuid }).first()) as ExecutionRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** The execution if the scope owns its query (the same rule as for queries), else undefined. */
export async function findOwnedExecution(db: Db, scope: ReportScope, uuid: string): Promise<ExecutionRecord | undefined> {
  const q = db('scheduled_query_executions').where({ uuid });
  if (scope.kind === 'account') q.andWhere({ scope: 'account', account_name: scope.accountName });
  else q.andWhere({ scope: 'global' });
  const row = (await q.first()) as ExecutionRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** The query's newest executions first. */
export async function listExecutions(db: Db, queryUuid: string, limit: number): Promise<ExecutionRecord[]> {
  const rows = (await db('scheduled_query_executions')
    .where({ query_uuid: queryUuid })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'uuid', order: 'desc' },
    ])
    .limit(limit)) as ExecutionRow[];
  return rows.map(toRecord);
}

/** Starts (or, after an interrupted attempt, restarts) a run: pages of an earlier attempt are dropped first. */
export async function markRunning(db: Db, uuid: string, reportKind: string): Promise<void> {
  await db.transaction(async (trx) => {
    await deleteResultPages(trx, uuid);
    await trx('scheduled_query_executions')
      .where({ uuid })
      .update({ status: 'running', report_kind: reportKind, started_at: nowIso(), finished_at: null, error: null, result_count: 0, page_count: 0 });
  });
}

export async function completeExecution(db: Db, uuid: string, stored: { resultCount: number; pageCount: number }): Promise<void> {
  await db('scheduled_query_executions')
    .where({ uuid })
    .update({ status: 'complete', result_count: stored.resultCount, page_count: stored.pageCount, finished_at: nowIso() });
}

/** Marks the run failed and drops whatever pages it wrote, so a failure never leaves a partial result. */
export async function failExecution(db: Db, uuid: string, error: string): Promise<void> {
  await db.transaction(async (trx) => {
    await deleteResultPages(trx, uuid);
    await trx('scheduled_query_executions')
      .where({ uuid })
      .update({ status: 'failed', error: error.slice(0, 4000), result_count: 0, page_count: 0, finished_at: nowIso() });
  });
}

/** Deletes the query's finished executions beyond the newest `keep` (pages cascade). */
export async function pruneExecutions(db: Db, queryUuid: string, keep = EXECUTIONS_KEPT_PER_QUERY): Promise<number> {
  const stale = db('scheduled_query_executions')
    .where({ query_uuid: queryUuid })
    .whereIn('status', ['complete', 'failed'])
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'uuid', order: 'desc' },
    ])
    .offset(keep)
    .select('uuid');
  const uuids = ((await stale) as { uuid: string }[]).map((r) => r.uuid);
  if (uuids.length === 0) return 0;
  return db('scheduled_query_executions').whereIn('uuid', uuids).delete();
}
