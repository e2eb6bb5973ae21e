/**
 * Notification messages: an event turned into the upstream notification shape for its type (vuln_update,
 * policy_eval, tag_update, analysis_update; any other event as `event`). Built once when the event is
 * recorded, so every try and every replay delivers the same content.
 */
import type { Db } from '../db/index.js';
import type { EventRecord } from '../events/events.js';
import type { FindingChange, FindingsDiff } from '../vulns/findings.js';
import { detailsKey, loadVulnerabilityDetails } from '../vulns/vuln-details.js';
import type { NotificationMessage, NotificationType, SourceEvent } from './types.js';

const TYPE_OF_EVENT: Record<string, NotificationType> = {
  'user.checks.tag.vulnerabilities.update': 'vuln_update',
  'user.checks.tag.policy_evaluation.update': 'policy_eval',
  'user.checks.tag.update': 'tag_update',
  'user.image.analysis.completed': 'analysis_update',
  'user.image.analysis.failed': 'analysis_update',
};

export function notificationTypeOf(eventType: string): NotificationType {
  return TYPE_OF_EVENT[eventType] ?? 'event';
}

/** The event types notifications of `type` are made from. */
export function eventTypesOf(type: NotificationType): string[] {
  return Object.keys(TYPE_OF_EVENT).filter((e) => TYPE_OF_EVENT[e] === type);
}

export function sourceEventOf(e: EventRecord): SourceEvent {
  return { id: e.id, type: e.type, level: e.level, message: e.message, resource_type: e.resource_type, resource_id: e.resource_id, timestamp: e.timestamp };
}

/** Adds each finding's severity and advisory link: what a receiver needs to triage without a second call. */
async function withSeverities(db: Db, diff: FindingsDiff): Promise<FindingsDiff> {
  const all = [...diff.added, ...diff.updated, ...diff.removed];
  const details = await loadVulnerabilityDetails(db, all.map((f) => ({ feed: f.feed, id: f.vuln })));
  const enrich = (f: FindingChange) => {
    const d = details.get(detailsKey(f.feed, f.vuln));
    return { ...f, severity: d?.severity ?? 'Unknown', url: d?.url ?? null };
  };
  return { added: diff.added.map(enrich), updated: diff.updated.map(enrich), removed: diff.removed.map(enrich) };
}

async function currentTags(db: Db, accountName: string, digest: string): Promise<string[]> {
  const rows: { full_tag: string }[] = await db('image_tags').where({ account_name: accountName, image_digest: digest, current: true }).orderBy('full_tag').select('full_tag');
  return rows.map((r) => r.full_tag);
}

/** The type-specific part of the payload (GenericNotificationPayload's extensions). */
async function payloadBody(db: Db, type: NotificationType, e: EventRecord, details: Record<string, unknown>): Promise<Record<string, unknown>> {
  switch (type) {
    case 'vuln_update':
      return {
        subscription_key: details.subscription_key ?? e.resource_id,
        image_digest: details.image_digest,
        diff_vulnerability_result: await withSeverities(db, details.diff_vulnerability_result as FindingsDiff),
      };
    case 'policy_eval':
      return {
        subscription_key: details.subscription_key ?? e.resource_id,
        image_digest: details.image_digest,
        policy_id: details.policy_id,
        last_eval: details.last_eval,
        curr_eval: details.curr_eval,
      };
    case 'tag_update':
      return { subscription_key: e.resource_id, last_eval: [details.previous_digest], curr_eval: [details.current_digest] };
    case 'analysis_update': {
      const tags = await currentTags(db, e.account_name, e.resource_id);
      const failed = e.type === 'user.image.analysis.failed';
      return {
        subscription_key: tags[0] ?? e.resource_id,
        image_digest: e.resource_id,
        tags,
        last_eval: { analysis_status: 'analyzing', image_digest: e.resource_id, annotations: {} },
        curr_eval: { analysis_status: failed ? 'analysis_failed' : 'analyzed', image_digest: e.resource_id, annotations: {} },
        ...(failed ? { reason: details.reason ?? e.message } : {}),
      };
    }
    default:
      return { subscription_key: e.resource_id, event: { ...sourceEventOf(e), details } };
  }
}

/** The message for an event, without its id: one is given per configuration it is queued for. */
export async function messageForEvent(db: Db, e: EventRecord): Promise<Omit<NotificationMessage, 'id'>> {
  const type = notificationTypeOf(e.type);
  const details = JSON.parse(e.details) as Record<string, unknown>;
  const account: { email: string | null } | undefined = await db('accounts').where({ name: e.account_name }).first('email');
  return {
    accountName: e.account_name,
    accountEmail: account?.email ?? null,
    notificationType: type,
    createdAt: e.timestamp,
    event: sourceEventOf(e),
    payload: {
      account_name: e.account_name,
      subscription_type: type,
      ...(await payloadBody(db, type, e, details)),
      annotations: {},
    },
  };
}

/** The message queued for one configuration: the shared one with its own id, also inside the payload. */
export function messageWithId(message: Omit<NotificationMessage, 'id'>, id: string): NotificationMessage {
  return { ...message, id, payload: { ...message.payload, notification_id: id } };
}
