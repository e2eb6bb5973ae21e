/**
 * Slack incoming webhooks: a Block Kit message (header, summary, fields, context) with a plain `text`
 * fallback for notifications and clients that do not render blocks. Slack answers 200 `ok`; failures are
 * 4xx with a short code in the body (400 invalid_payload, 403 action_prohibited, 404 no_service,
 * 410 channel_is_archived), which the shared HTTP classifier reports as not retryable.
 */
import type { NotificationMessage, SlackTarget } from '../types.js';
import { clip, describeNotification, type Fact } from './describe.js';
import { postToReceiver } from './http-outcome.js';
import type { DeliveryChannel } from './outcome.js';

// Block Kit limits (https://api.slack.com/reference/block-kit/blocks)
const HEADER_MAX_CHARS = 150;
const SECTION_MAX_CHARS = 3000;
const FIELD_MAX_CHARS = 2000;
const MAX_FIELDS = 10;

interface MrkdwnText {
  type: 'mrkdwn';
  text: string;
  /** No auto-linking of URLs, channel names or @mentions in data we did not write. */
  verbatim: true;
}

export function slackMessage(message: NotificationMessage): object {
  const { title, summary, facts, severity } = describeNotification(message);
  const fields = facts.slice(0, MAX_FIELDS).map(factField);
  return {
    text: fitMrkdwn(`${title}: ${summary}`, SECTION_MAX_CHARS),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(title, HEADER_MAX_CHARS), emoji: false } },
      { type: 'section', text: mrkdwn(fitMrkdwn(summary, SECTION_MAX_CHARS)) },
      ...(fields.length > 0 ? [{ type: 'section', fields }] : []),
      { type: 'context', elements: [mrkdwn(fitMrkdwn(`Vigil · ${severity} · notification ${message.id}`, SECTION_MAX_CHARS))] },
    ],
  };
}

/** The three characters Slack's mrkdwn requires escaped; everything else is shown as typed. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const slackChannel: DeliveryChannel<SlackTarget> = {
  kind: 'slack',
  deliver(target, message, options) {
    return postToReceiver({ url: target.url, verifyTls: target.verifyTls, timeoutMs: target.timeoutMs }, options, () => ({
      body: JSON.stringify(slackMessage(message)),
    }));
  },
};

function factField(fact: Fact): MrkdwnText {
  const name = `*${escapeMrkdwn(fact.name)}*\n`;
  return mrkdwn(`${name}${fitMrkdwn(fact.value, FIELD_MAX_CHARS - name.length)}`);
}

function mrkdwn(text: string): MrkdwnText {
  return { type: 'mrkdwn', text, verbatim: true };
}

/** Escaped text within `max` characters as Slack counts them, never ending in half an entity. */
function fitMrkdwn(text: string, max: number): string {
  const escaped = escapeMrkdwn(text);
  if (escaped.length <= max) return escaped;
  // drop a trailing partial entity (&am) or half of a surrogate pair
  return `${escaped.slice(0, max - 1).replace(/&[a-z]*$/, '').replace(/[\uD800-\uDBFF]$/, '')}…`;
}
