/**
 * The upstream engine's webhook test (`POST /v2/system/webhooks/{webhook_type}/test`): send a sample notification
 * to the account's configured webhook of a type. Upstream's webhook types are `general` (the webhook that gets
 * every notification) and one per notification type. In Vigil the account's webhooks are its `webhook` endpoint
 * configurations: `general` means all of them, a notification type the ones with a selector that selects the
 * events notifications of that type are made from. Each gets the sample through the same channel, policy and
 * limits as real deliveries, and its operational status is updated as by the configuration test route.
 */
import type { Db } from '../db/index.js';
import { AppError, NotFoundError } from '../errors.js';
import { EVENT_CATEGORIES } from '../events/catalog.js';
import type { SecretBox } from '../util/secret-box.js';
import { listConfigurations } from './configurations.js';
import { eventTypesOf } from './messages.js';
import { listSelectors, selectorMatches, type SelectableEvent } from './selectors.js';
import { testStoredConfiguration, type SampleType } from './test-send.js';
import type { DeliveryOptions } from './types.js';

export const WEBHOOK_TYPES = ['general', 'tag_update', 'analysis_update', 'vuln_update', 'policy_eval'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** What the events of each notification type are about (the resource type they are recorded with). */
const RESOURCE_TYPE: Record<SampleType, string> = {
  tag_update: 'image_tag',
  vuln_update: 'image_tag',
  policy_eval: 'image_tag',
  analysis_update: 'image_digest',
};

/** The events a webhook of `type` must select, as selectors see them. */
function eventsOf(accountName: string, type: SampleType): SelectableEvent[] {
  const catalog = EVENT_CATEGORIES.flatMap((c) => c.types);
  return eventTypesOf(type).map((eventType) => ({
    account_name: accountName,
    type: eventType,
    level: catalog.find((t) => t.type === eventType)?.level ?? 'INFO',
    resource_type: RESOURCE_TYPE[type],
  }));
}

export interface WebhookTestResult {
  configuration_uuid: string;
  status: 'success' | 'failure';
  response: string;
}

/**
 * Sends a sample of `notificationType` to each webhook configuration of the account that is of `webhookType`.
 * NotFoundError when there is none; an AppError `notification_delivery_failed` (502) when a receiver did not
 * accept it, with every result in the detail.
 */
export async function testWebhooks(
  db: Db,
  box: SecretBox,
  account: { name: string; email: string | null },
  webhookType: WebhookType,
  notificationType: SampleType,
  options: DeliveryOptions,
): Promise<WebhookTestResult[]> {
  let configurations = await listConfigurations(db, account.name, 'webhook');
  if (webhookType !== 'general') {
    const events = eventsOf(account.name, webhookType);
    const selected = await Promise.all(
      configurations.map(async (c) => (await listSelectors(db, account.name, 'webhook', c.uuid)).some((s) => events.some((e) => selectorMatches(s, e)))),
    );
    configurations = configurations.filter((_, i) => selected[i]);
  }
  if (!configurations.length)
    throw new NotFoundError(
      webhookType === 'general'
        ? `account '${account.name}' has no webhook configured; add one with POST /v2/notifications/endpoints/webhook/configurations`
        : `account '${account.name}' has no webhook that receives ${webhookType} notifications; add a selector for ${eventTypesOf(webhookType).join(' or ')} to a webhook configuration`,
      { webhook_type: webhookType },
    );
  const results = await Promise.all(
    configurations.map(async (c) => ({ configuration_uuid: c.uuid, ...(await testStoredConfiguration(db, box, c, account, notificationType, options)) })),
  );
  const failed = results.filter((r) => r.status === 'failure');
  if (failed.length)
    throw new AppError(
      502,
      'notification_delivery_failed',
      `${failed.length} of ${results.length} webhook${results.length > 1 ? 's' : ''} did not accept the test notification: ${failed[0].response}`,
      { results },
    );
  return results;
}
