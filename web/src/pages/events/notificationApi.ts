/**
 * The notification routes of the four endpoint kinds. Their routes have the same shapes (upstream's API repeats
 * them per kind), so each call is typed through the webhook route with the kind put into the path at run time;
 * SMTP's configuration differs only in its fields, which the form handles.
 */
import type { components } from '../../../../generated/openapi-types';
import { data, type RestClient } from '../../api/client';

export const KINDS = ['webhook', 'slack', 'teams', 'smtp'] as const;
export type Kind = (typeof KINDS)[number];
export const KIND_LABEL: Record<Kind, string> = { webhook: 'Webhook', slack: 'Slack', teams: 'Microsoft Teams', smtp: 'Email (SMTP)' };

export type WebhookConfiguration = components['schemas']['NotificationWebhookEndpointConfiguration'];
export type SmtpConfiguration = components['schemas']['NotificationSMTPEndpointConfiguration'];
/** The fields of any kind's configuration (url for the HTTP kinds; host, port, from, to for SMTP). */
export type Configuration = Partial<WebhookConfiguration> & Partial<SmtpConfiguration>;
export type Delivery = components['schemas']['NotificationDelivery'];
export type Receipt = components['schemas']['NotificationReceipt'];
export type Selector = components['schemas']['NotificationSelector'];
export type TestType = 'tag_update' | 'analysis_update' | 'vuln_update' | 'policy_eval';

const configurations = (kind: Kind) => `/notifications/endpoints/${kind}/configurations` as '/notifications/endpoints/webhook/configurations';
const configuration = (kind: Kind) => `/notifications/endpoints/${kind}/configurations/{uuid}` as '/notifications/endpoints/webhook/configurations/{uuid}';
const sub = <T extends string>(kind: Kind, rest: T) => `/notifications/endpoints/${kind}/configurations/${rest}` as `/notifications/endpoints/webhook/configurations/${T}`;
// What the body type says is a webhook configuration may be any kind's (see above).
const asBody = (config: Configuration) => config as WebhookConfiguration;

export function notificationApi(rest: RestClient, kind: Kind) {
  const uuidPath = (uuid: string) => ({ params: { path: { uuid } } });
  const deliveryPath = (uuid: string, id: string) => ({ params: { path: { configuration_uuid: uuid, notification_id: id } } });
  return {
    list: () => data(rest.GET(configurations(kind))),
    create: (config: Configuration) => data(rest.POST(configurations(kind), { body: asBody(config) })),
    get: (uuid: string) => data(rest.GET(configuration(kind), uuidPath(uuid))),
    update: (uuid: string, config: Configuration) => data(rest.PUT(configuration(kind), { ...uuidPath(uuid), body: asBody(config) })),
    remove: (uuid: string) => data(rest.DELETE(configuration(kind), uuidPath(uuid))),
    status: (uuid: string) => data(rest.GET(sub(kind, '{uuid}/status'), uuidPath(uuid))),
    test: (uuid: string, type: TestType) => data(rest.GET(sub(kind, '{uuid}/test'), { params: { path: { uuid }, query: { notification_type: type } } })),
    selectors: (uuid: string) => data(rest.GET(sub(kind, '{uuid}/selectors'), uuidPath(uuid))),
    addSelector: (uuid: string, selector: Selector) => data(rest.POST(sub(kind, '{uuid}/selectors'), { ...uuidPath(uuid), body: selector })),
    removeSelector: (uuid: string, selectorUuid: string) =>
      data(rest.DELETE(sub(kind, '{configuration_uuid}/selectors/{selector_uuid}'), { params: { path: { configuration_uuid: uuid, selector_uuid: selectorUuid } } })),
    deliveries: (uuid: string, page: number, limit: number) =>
      data(rest.GET(sub(kind, '{uuid}/deliveries'), { params: { path: { uuid }, query: { page, limit } } })),
    receipts: (uuid: string, id: string) => data(rest.GET(sub(kind, '{configuration_uuid}/deliveries/{notification_id}/receipts'), deliveryPath(uuid, id))),
    replay: (uuid: string, id: string) => data(rest.POST(sub(kind, '{configuration_uuid}/deliveries/{notification_id}/replay'), deliveryPath(uuid, id))),
  };
}

export const isKind = (value: string | undefined): value is Kind => KINDS.includes(value as Kind);
