/**
 * Microsoft Teams incoming webhooks and Workflows (Power Automate) webhooks: a message carrying one Adaptive
 * Card (title, summary, fact set). Workflows answer 202 Accepted; the retired Office 365 connectors answer 200.
 */
import type { DeliveryOutcome, NotificationMessage, TeamsTarget } from '../types.js';
import type { PostResult } from '../../outbound/post-json.js';
import { clip, describeNotification, type NotificationSeverity } from './describe.js';
import { httpOutcome, isRetryableStatus, postToReceiver } from './http-outcome.js';
import type { DeliveryChannel } from './outcome.js';

/** Teams refuses cards over about 28 KB; capping each text keeps a card with long reasons well under. */
const MAX_TEXT_CHARS = 2000;

const TITLE_COLOR: Record<NotificationSeverity, string | undefined> = { error: 'Attention', warning: 'Warning', info: undefined };

export function teamsMessage(message: NotificationMessage): object {
  const { title, summary, facts, severity } = describeNotification(message);
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: cardText(title), size: 'Large', weight: 'Bolder', wrap: true, ...colorOf(severity) },
            { type: 'TextBlock', text: cardText(summary), wrap: true },
            { type: 'FactSet', facts: facts.map((fact) => ({ title: cardText(fact.name), value: cardText(fact.value) })) },
          ],
          msteams: { width: 'Full' },
        },
      },
    ],
  };
}

/**
 * Card text is rendered as a Markdown subset (emphasis, links, lists): backslash-escape the characters that
 * would turn data into emphasis or a link, and double newlines because Markdown folds a single one.
 */
export function escapeCardText(text: string): string {
  return text.replace(/[\\*_[\]`~]/g, '\\$&').replace(/\r?\n/g, '\n\n');
}

export const teamsChannel: DeliveryChannel<TeamsTarget> = {
  kind: 'teams',
  deliver(target, message, options) {
    const receiver = { url: target.url, verifyTls: target.verifyTls, timeoutMs: target.timeoutMs };
    return postToReceiver(receiver, options, () => ({ body: JSON.stringify(teamsMessage(message)) }), teamsOutcome);
  },
};

/**
 * The Office 365 connector relay answers 200 even when Teams refused the message, with a body like
 * "Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429 ...".
 */
const RELAY_FAILURE = /^webhook message delivery failed/i;

function teamsOutcome(result: PostResult, latencyMs: number, secrets: readonly string[]): DeliveryOutcome {
  const outcome = httpOutcome(result, latencyMs, secrets);
  if (!outcome.ok || !RELAY_FAILURE.test(result.body.trim())) return outcome;
  const relayedStatus = Number(/HTTP error (\d{3})/i.exec(result.body)?.[1] ?? 0);
  return {
    ...outcome,
    ok: false,
    error: `Teams refused the message${relayedStatus ? ` with HTTP ${relayedStatus}` : ''}`,
    // without a status it is Teams' own failure, which passes
    retryable: relayedStatus === 0 || isRetryableStatus(relayedStatus),
  };
}

function cardText(text: string): string {
  return escapeCardText(clip(text, MAX_TEXT_CHARS));
}

function colorOf(severity: NotificationSeverity): { color?: string } {
  const color = TITLE_COLOR[severity];
  return color ? { color } : {};
}
