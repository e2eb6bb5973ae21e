/**
 * Shared shapes of the notifications domain: what is queued (a message built once from an event), where it
 * goes (a decrypted target per endpoint kind), and what an attempt to deliver it came to (an outcome, stored
 * as a receipt). Nothing here knows about HTTP routes or the database.
 */
import type { OutboundPolicy } from '../outbound/policy.js';

export const ENDPOINT_KINDS = ['webhook', 'slack', 'teams', 'smtp', 'github', 'jira'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

/**
 * The upstream subscription notification types, plus `event` (any other catalogued event a selector matched)
 * and `test` (sent by the configuration test routes).
 */
export type NotificationType = 'tag_update' | 'vuln_update' | 'policy_eval' | 'analysis_update' | 'event' | 'test';

/** The event a notification was made from, as the events API shows it. */
export interface SourceEvent {
  id: string;
  type: string;
  level: 'INFO' | 'ERROR';
  message: string;
  resource_type: string;
  resource_id: string;
  timestamp: string;
}

/** What is delivered, whatever the endpoint kind; built when the event is recorded and stored in the outbox. */
export interface NotificationMessage {
  /** Unique per notification and stable across retries and replays: receivers de-duplicate on it. */
  id: string;
  accountName: string;
  /** The account's e-mail address, when it has one (upstream `notification_user_email`). */
  accountEmail: string | null;
  notificationType: NotificationType;
  /** ISO 8601, when the notification was queued. */
  createdAt: string;
  event: SourceEvent;
  /** The upstream notification payload (GenericNotificationPayload and its per-type extensions). */
  payload: Record<string, unknown>;
}

interface TargetBase {
  /** Verify the receiver's TLS certificate (https and SMTP with TLS). */
  verifyTls: boolean;
  /** Give up on one attempt after this long: connecting, sending and reading the reply. */
  timeoutMs: number;
}

export interface WebhookTarget extends TargetBase {
  kind: 'webhook';
  url: string;
  username: string | null;
  password: string | null;
  /** Key of the X-Vigil-Signature HMAC-SHA256 over the body. */
  signingSecret: string;
}

export interface SlackTarget extends TargetBase {
  kind: 'slack';
  /** Incoming-webhook URL; its path is the credential. */
  url: string;
}

export interface TeamsTarget extends TargetBase {
  kind: 'teams';
  /** Incoming-webhook (or Workflows) URL; its path and query are the credential. */
  url: string;
}

export interface SmtpTarget extends TargetBase {
  kind: 'smtp';
  host: string;
  port: number;
  username: string | null;
  password: string | null;
  from: string;
  /** Recipients, comma-separated as configured. */
  to: string;
  /** true: TLS from the first byte (port 465); false: plain, upgraded with STARTTLS when the server offers it. */
  useTls: boolean;
}

/** A GitHub repository where each notification opens an issue. */
export interface GitHubTarget extends TargetBase {
  kind: 'github';
  /** The REST API's base URL: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
  apiUrl: string;
  accessToken: string;
  owner: string;
  repository: string;
  labels: string[];
  assignees: string[];
  milestone: number | null;
}

/** A Jira project where each notification creates an issue. */
export interface JiraTarget extends TargetBase {
  kind: 'jira';
  /** The site's base URL (https://example.atlassian.net, or a Jira Server/Data Center base URL with its context path). */
  url: string;
  username: string;
  /** A Jira Cloud API token, or a Server/Data Center password. */
  password: string;
  projectKey: string;
  issueType: string;
  priority: string | null;
  assignee: string | null;
  labels: string[];
}

export type DeliveryTarget = WebhookTarget | SlackTarget | TeamsTarget | SmtpTarget | GitHubTarget | JiraTarget;

/** One attempt's result. Never holds a secret: no URL path or query, no credentials. */
export interface DeliveryOutcome {
  ok: boolean;
  /** HTTP status of the receiver's answer, when it answered. */
  httpStatus: number | null;
  /** The SMTP server's final reply line, when it answered. */
  smtpResponse: string | null;
  /** A short, printable summary of the answer (status line or reply, and the start of the body; at most 1 KiB). */
  response: string;
  /** Why the attempt failed, when it did. */
  error: string | null;
  latencyMs: number;
  /** false when trying again cannot help (e.g. the address is refused by the outbound policy). */
  retryable: boolean;
}

export interface DeliveryOptions {
  /** Which addresses receivers may resolve to (VIGIL_OUTBOUND_ALLOW). */
  policy: OutboundPolicy;
  /** Largest response body read from a receiver; the rest is discarded. */
  maxResponseBytes: number;
  /** Sent as User-Agent / X-Mailer. */
  userAgent: string;
}

/** One endpoint kind's transport: delivers a message to a target and reports the outcome; never throws. */
export interface Channel<T extends DeliveryTarget = DeliveryTarget> {
  kind: T['kind'];
  deliver(target: T, message: NotificationMessage, options: DeliveryOptions): Promise<DeliveryOutcome>;
}
