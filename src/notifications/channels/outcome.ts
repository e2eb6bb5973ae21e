/**
 * What every channel shares when it reports an attempt: the attempt counter the outbox passes in, the 1 KiB
 * printable summary, redaction of the target's secrets from any text that leaves the channel, and how a
 * refusal or failure of the outbound layer (policy, DNS, connect, timeout) is classified.
 */
import type { Channel, DeliveryOptions, DeliveryOutcome, DeliveryTarget, NotificationMessage } from '../types.js';
import { OutboundError, type OutboundFailure } from '../../outbound/errors.js';

/** Which attempt this is; webhooks send it to the receiver (X-Vigil-Delivery-Attempt, tries/max_tries). */
export interface AttemptInfo {
  tries: number;
  maxTries: number;
}

/** DeliveryOptions plus the attempt counter. `attempt` is optional, so plain DeliveryOptions still fit. */
export type ChannelDeliveryOptions = DeliveryOptions & { attempt?: AttemptInfo };

/** A Channel whose deliver() also takes the attempt counter (the same interface: the field is optional). */
export interface DeliveryChannel<T extends DeliveryTarget> extends Channel<T> {
  deliver(target: T, message: NotificationMessage, options: ChannelDeliveryOptions): Promise<DeliveryOutcome>;
}

export const FIRST_ATTEMPT: AttemptInfo = { tries: 1, maxTries: 1 };

/** DeliveryOutcome.response is at most this many bytes (UTF-8). */
export const MAX_RESPONSE_BYTES = 1024;

const REDACTED = '[redacted]';

/** Starts the latency clock; the returned function reads it in whole milliseconds. */
export function startClock(): () => number {
  const started = performance.now();
  return () => Math.round(performance.now() - started);
}

/** Printable (control characters become spaces), secrets replaced, cut to MAX_RESPONSE_BYTES. */
export function summarize(text: string, secrets: readonly string[]): string {
  const printable = redact(text, secrets).replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return cutToBytes(printable, MAX_RESPONSE_BYTES);
}

/** Replaces every occurrence of each secret, longest first so a secret containing another is caught whole. */
export function redact(text: string, secrets: readonly string[]): string {
  const ordered = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  return ordered.reduce((result, secret) => result.split(secret).join(REDACTED), text);
}

/**
 * The parts of a receiver URL that are credentials: the whole URL, its path and query (Slack and Teams put
 * the token there) and userinfo, each also in the percent-decoded form a library might echo.
 */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const pathAndQuery = `${parsed.pathname}${parsed.search}`;
  const parts = [url, parsed.href, parsed.search, parsed.username, parsed.password];
  if (parsed.pathname !== '/') parts.push(pathAndQuery, parsed.pathname);
  return parts.flatMap((part) => [part, safeDecode(part)]);
}

/** A failed attempt with nothing learned from the receiver beyond what the caller passes. */
export function failedOutcome(
  fields: Pick<DeliveryOutcome, 'error' | 'retryable' | 'latencyMs'> & Partial<Pick<DeliveryOutcome, 'httpStatus' | 'smtpResponse' | 'response'>>,
): DeliveryOutcome {
  return { ok: false, httpStatus: null, smtpResponse: null, response: '', ...fields };
}

/** Trying again helps only when the network or the receiver may recover; a refusal or bad configuration stays. */
const RETRYABLE_OUTBOUND: Record<OutboundFailure, boolean> = {
  // a refused address is retried like a receiver that is down: telling them apart would tell an address the
  // policy refuses from a closed port (the retries cost no traffic: a refused address is never contacted)
  unreachable: true,
  response: true,
  // certificate problems are configuration (expired, self-signed, wrong name): a retry minutes later fails alike
  tls: false,
  bad_url: false,
  redirect: false,
};

/**
 * The outcome for an exception from the outbound layer or from building the request. OutboundError messages
 * are written to be safe; anything else is unexpected, reported as such and still redacted.
 */
export function thrownOutcome(err: unknown, latencyMs: number, secrets: readonly string[]): DeliveryOutcome {
  if (err instanceof OutboundError) {
    return failedOutcome({ error: summarize(`${err.reason}: ${err.message}`, secrets), retryable: RETRYABLE_OUTBOUND[err.reason], latencyMs });
  }
  const message = err instanceof Error ? err.message : String(err);
  return failedOutcome({ error: summarize(`unexpected error: ${message}`, secrets), retryable: true, latencyMs });
}

function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const ellipsis = '…';
  let budget = maxBytes - Buffer.byteLength(ellipsis);
  let kept = '';
  for (const char of text) {
    budget -= Buffer.byteLength(char);
    if (budget < 0) break;
    kept += char;
  }
  return `${kept}${ellipsis}`;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
