/** Notification messages shaped like the ones the outbox stores, for the channel and format tests. */
import type { NotificationMessage, NotificationType, SourceEvent } from '../../../src/notifications/types.js';

export const TAG = 'docker.io/library/nginx:latest';
export const DIGEST = `sha256:${'a'.repeat(64)}`;
export const OLD_DIGEST = `sha256:${'b'.repeat(64)}`;

const EVENT_TYPES: Record<NotificationType, string> = {
  vuln_update: 'user.checks.tag.vulnerabilities.update',
  policy_eval: 'user.checks.tag.policy_evaluation.update',
  tag_update: 'user.checks.tag.update',
  analysis_update: 'user.image.analysis.completed',
  event: 'system.feeds.sync.failed',
  test: 'notification.test',
};

export function notification(
  notificationType: NotificationType,
  payload: Record<string, unknown> = {},
  event: Partial<SourceEvent> = {},
): NotificationMessage {
  return {
    id: 'ntf-0001',
    accountName: 'acme',
    accountEmail: 'ops@acme.example',
    notificationType,
    createdAt: '2025-01-02T03:04:05.678Z',
    event: {
      id: 'evt-1',
      type: EVENT_TYPES[notificationType],
      level: 'INFO',
      message: 'something happened',
      resource_type: 'image_tag',
      resource_id: TAG,
      timestamp: '2025-01-02T03:04:05Z',
      ...event,
    },
    payload: {
      account_name: 'acme',
      subscription_key: TAG,
      subscription_type: notificationType,
      notification_id: 'ntf-0001',
      ...payload,
    },
  };
}

export function finding(vuln: string, severity: string, fix = 'None'): Record<string, unknown> {
  return { vuln, severity, package: 'openssl', package_version: '3.0.2', fix, feed: 'vulnerabilities', feed_group: 'debian:12' };
}

export function vulnUpdate(added: Record<string, unknown>[], updated: Record<string, unknown>[] = [], removed: Record<string, unknown>[] = []): NotificationMessage {
  return notification('vuln_update', { image_digest: DIGEST, diff_vulnerability_result: { added, updated, removed } });
}
