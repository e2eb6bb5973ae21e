/** Scheduled queries and their executions as stored (scheduled_queries, scheduled_query_executions). */

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
