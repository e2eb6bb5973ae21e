/**
 * Compliance-violation alerts of an account: reading them (filtered, newest first, paged) and opening or closing
 * one by hand. Every change of state records an event (alerts are events, so notifications deliver them), in the
 * transaction that makes the change.
 */
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { InvalidError, NotFoundError } from '../errors.js';
import { recordEvent } from '../events/events.js';
import type { StopTrigger } from '../policy/evaluation-observers.js';
import { nowIso } from '../util/time.js';

export type AlertState = 'open' | 'closed';

export interface ComplianceAlert {
  uuid: string;
  account_name: string;
  state: AlertState;
  image_tag: string;
  registry: string;
  repository: string;
  image_digest: string;
  policy_id: string;
  evaluation_id: string;
  evaluated_at: string;
  compliance_status_reason: string;
  violations_count: number;
  triggers: StopTrigger[];
  closed_by: string | null;
  closed_reason: string | null;
  cleared: boolean;
  created_at: string;
  last_updated: string;
}

type AlertRow = Omit<ComplianceAlert, 'triggers' | 'cleared'> & { triggers: string; cleared: unknown };

export const alertOfRow = (r: AlertRow): ComplianceAlert => ({
  ...r,
  violations_count: Number(r.violations_count),
  triggers: JSON.parse(r.triggers) as StopTrigger[],
  cleared: toBool(r.cleared),
});

/** The resource labels of an alert (`key=value` filters of the summaries match these), by label key. */
export const LABEL_COLUMNS = { tag: 'image_tag', registry: 'registry', repository: 'repository', image_digest: 'image_digest' } as const;
export type LabelKey = keyof typeof LABEL_COLUMNS;

export interface AlertFilter {
  state: AlertState | 'all';
  createdAfter?: string;
  createdBefore?: string;
  /** Column values every listed alert has (image_tag, registry, repository, image_digest). */
  resource?: Partial<Record<(typeof LABEL_COLUMNS)[LabelKey], string>>;
}

/** `key=value` labels as column conditions; an unknown key or a key given twice with two values is a 400. */
export function labelConditions(labels: readonly string[]): NonNullable<AlertFilter['resource']> {
  const resource: Record<string, string> = {};
  for (const label of labels) {
    const at = label.indexOf('=');
    const key = label.slice(0, at);
    const column = Object.hasOwn(LABEL_COLUMNS, key) ? LABEL_COLUMNS[key as LabelKey] : undefined;
    if (at < 1 || !column)
      throw new InvalidError(`resource_label '${label}' must be key=value with a key of ${Object.keys(LABEL_COLUMNS).join(', ')}`, {
        errors: [{ location: 'query.resource_label', message: `unknown label '${label}'` }],
      });
    const value = label.slice(at + 1);
    if (resource[column] !== undefined && resource[column] !== value)
      throw new InvalidError(`resource_label names '${key}' twice with different values`, { errors: [{ location: 'query.resource_label', message: `'${key}' twice` }] });
    resource[column] = value;
  }
  return resource;
}

const asIso = (value: string, name: string): string => {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new InvalidError(`${name} is not a timestamp`, { errors: [{ location: `query.${name}`, message: 'not a date-time' }] });
  return d.toISOString();
};

export async function listAlerts(db: Db, accountName: string, f: AlertFilter, page: number, limit: number): Promise<ComplianceAlert[]> {
  const q = db<AlertRow>('compliance_alerts').where({ account_name: accountName });
  if (f.state !== 'all') q.andWhere('state', f.state);
  if (f.createdAfter) q.andWhere('created_at', '>', asIso(f.createdAfter, 'created_after'));
  if (f.createdBefore) q.andWhere('created_at', '<', asIso(f.createdBefore, 'created_before'));
  for (const [column, value] of Object.entries(f.resource ?? {})) q.andWhere(column, value);
  const rows = await q
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'uuid', order: 'desc' }])
    .offset((page - 1) * limit)
    .limit(limit);
  return rows.map(alertOfRow);
}

export async function getAlert(db: Db, accountName: string, uuid: string): Promise<ComplianceAlert> {
  const row = await db<AlertRow>('compliance_alerts').where({ account_name: accountName, uuid }).first();
  if (!row) throw new NotFoundError(`compliance violation alert '${uuid}' does not exist`, { uuid });
  return alertOfRow(row);
}

/** What an alert event carries: enough for a receiver to act without a second call. */
export function alertEventDetails(a: ComplianceAlert): Record<string, unknown> {
  const { account_name: _account, cleared: _cleared, ...alert } = a;
  return { subscription_type: 'alerts', subscription_key: a.image_tag, alert };
}

/** Records the alert's opened or closed event (inside the caller's transaction). */
export async function recordAlertEvent(trx: Db, a: ComplianceAlert): Promise<void> {
  await recordEvent(trx, {
    accountName: a.account_name,
    type: a.state === 'open' ? 'user.alerts.compliance_violation.opened' : 'user.alerts.compliance_violation.closed',
    resourceType: 'image_tag',
    resourceId: a.image_tag,
    message:
      a.state === 'open'
        ? `${a.image_tag}: compliance-violation alert ${a.uuid} opened (${a.violations_count} STOP results under policy ${a.policy_id})`
        : `${a.image_tag}: compliance-violation alert ${a.uuid} closed by ${a.closed_by ?? 'system'}`,
    details: alertEventDetails(a),
  });
}

/** Opens or closes an alert by hand; idempotent (no event when the state does not change). */
export async function setAlertState(db: Db, accountName: string, uuid: string, state: AlertState, by: string): Promise<ComplianceAlert> {
  return db.transaction(async (trx) => {
    const before = await getAlert(trx, accountName, uuid);
    if (before.state === state) return before;
    const changes = {
      state,
      closed_by: state === 'closed' ? by : null,
      closed_reason: state === 'closed' ? 'closed by user' : null,
      last_updated: nowIso(),
    };
    await trx('compliance_alerts').where({ account_name: accountName, uuid }).update(changes);
    const after = { ...before, ...changes };
    await recordAlertEvent(trx, after);
    return after;
  });
}
