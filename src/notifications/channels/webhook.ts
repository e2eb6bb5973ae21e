/**
 * Generic webhooks: the upstream NotificationBase JSON (so receivers written for the upstream service keep
 * working), signed with HMAC-SHA256 over the exact body bytes so a receiver can tell it came from us.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NotificationMessage, WebhookTarget } from '../types.js';
import { postToReceiver } from './http-outcome.js';
import { FIRST_ATTEMPT, type AttemptInfo, type DeliveryChannel } from './outcome.js';

export type { AttemptInfo } from './outcome.js';

const SIGNATURE_PREFIX = 'sha256=';

/** The upstream NotificationBase body, as JSON text: what is signed is exactly what is sent. */
export function webhookBody(message: NotificationMessage, attempt: AttemptInfo): string {
  return JSON.stringify({
    queue_id: 'notifications',
    account_name: message.accountName,
    data_id: message.id,
    created_at: epochSeconds(Date.parse(message.createdAt)),
    last_updated: epochSeconds(Date.now()),
    record_state_key: 'active',
    record_state_val: null,
    tries: attempt.tries,
    max_tries: attempt.maxTries,
    data: {
      notification_user: message.accountName,
      notification_user_email: message.accountEmail,
      notification_type: message.notificationType,
      notification_payload: message.payload,
    },
  });
}

/** The X-Vigil-Signature value: `sha256=` and the hex HMAC-SHA256 of the body under the endpoint's secret. */
export function signBody(body: string, secret: string): string {
  return `${SIGNATURE_PREFIX}${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** For receivers and tests: whether `header` is the signature of `body`, compared in constant time. */
export function verifySignature(body: string, secret: string, header: string | null | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signBody(body, secret));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const webhookChannel: DeliveryChannel<WebhookTarget> = {
  kind: 'webhook',
  deliver(target, message, options) {
    const attempt = options.attempt ?? FIRST_ATTEMPT;
    const basicAuth = target.username ? { username: target.username, password: target.password ?? '' } : null;
    return postToReceiver({ url: target.url, verifyTls: target.verifyTls, timeoutMs: target.timeoutMs, basicAuth }, options, () => {
      const body = webhookBody(message, attempt);
      return {
        body,
        headers: {
          'X-Vigil-Notification-Id': message.id,
          'X-Vigil-Notification-Type': message.notificationType,
          'X-Vigil-Delivery-Attempt': String(attempt.tries),
          // Stored configurations always have a secret; an unsaved one under test may not, and then nothing is signed.
          ...(target.signingSecret ? { 'X-Vigil-Signature': signBody(body, target.signingSecret) } : {}),
        },
      };
    });
  },
};

/** Whole seconds since the epoch; an unreadable time counts as now rather than sending NaN (null in JSON). */
function epochSeconds(ms: number): number {
  return Math.floor((Number.isFinite(ms) ? ms : Date.now()) / 1000);
}
