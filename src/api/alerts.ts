/** Handlers of the Alerts tag: compliance-violation alerts and their summaries. */
import * as alerts from '../alerts/compliance-alerts.js';
import type { HandlerGroup } from '../server/handler-types.js';

type AlertOps = 'get_compliance_violation_alerts' | 'get_compliance_violation_alert' | 'update_compliance_violation_alert_state' | 'get_alert_summaries';

function alertShape(a: alerts.ComplianceAlert) {
  return {
    uuid: a.uuid,
    type: 'compliance_violation' as const,
    state: a.state,
    resource: {
      image_digest: a.image_digest,
      policy_id: a.policy_id,
      image_tag: a.image_tag,
      registry: a.registry,
      repository: a.repository,
      evaluation_id: a.evaluation_id,
      evaluated_at: a.evaluated_at,
    },
    closed_by: a.closed_by,
    closed_reason: a.closed_reason,
    created_at: a.created_at,
    last_updated: a.last_updated,
    compliance_status_reason: a.compliance_status_reason,
    violations_count: a.violations_count,
    triggers: a.triggers,
  };
}

function summaryShape(a: alerts.ComplianceAlert) {
  const labels = Object.entries(alerts.LABEL_COLUMNS).map(([key, column]) => ({ key, value: a[column] }));
  return {
    uuid: a.uuid,
    type: 'compliance_violation' as const,
    state: a.state,
    resource_labels: labels,
    closed_by: a.closed_by,
    closed_reason: a.closed_reason,
    created_at: a.created_at,
    last_updated: a.last_updated,
  };
}

export const alertHandlers: HandlerGroup<AlertOps> = {
  async get_compliance_violation_alerts(ctx, { query }) {
    const resource = {
      ...(query.resource_image_digest ? { image_digest: query.resource_image_digest } : {}),
      ...(query.resource_image_tag ? { image_tag: query.resource_image_tag } : {}),
      ...(query.resource_registry ? { registry: query.resource_registry } : {}),
      ...(query.resource_repository ? { repository: query.resource_repository } : {}),
    };
    const filter = { state: query.state ?? 'open', createdAfter: query.created_after, createdBefore: query.created_before, resource };
    const list = await alerts.listAlerts(ctx.db, ctx.account.name, filter, query.page ?? 1, query.limit ?? 100);
    return { status: 200, body: list.map(alertShape) };
  },
  async get_compliance_violation_alert(ctx, { params }) {
    return { status: 200, body: alertShape(await alerts.getAlert(ctx.db, ctx.account.name, params.uuid)) };
  },
  async update_compliance_violation_alert_state(ctx, { params, body }) {
    return { status: 200, body: alertShape(await alerts.setAlertState(ctx.db, ctx.account.name, params.uuid, body.state, ctx.caller.username)) };
  },
  async get_alert_summaries(ctx, { query }) {
    // Compliance violations are the only type, so `type` (all or compliance_violation) selects them all.
    const filter = {
      state: query.state ?? 'open',
      createdAfter: query.created_after,
      createdBefore: query.created_before,
      resource: alerts.labelConditions(query.resource_label ?? []),
    };
    const list = await alerts.listAlerts(ctx.db, ctx.account.name, filter, query.page ?? 1, query.limit ?? 100);
    return { status: 200, body: list.map(summaryShape) };
  },
};
