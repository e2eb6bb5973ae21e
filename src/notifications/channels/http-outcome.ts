/**
 * The HTTP side shared by the webhook, Slack, Teams, GitHub and Jira channels: POST a JSON body through the outbound guard
 * and turn the receiver's answer, or the failure to get one, into a DeliveryOutcome.
 */
import type { DeliveryOptions, DeliveryOutcome } from '../types.js';
import { postJson, type PostResult } from '../../outbound/post-json.js';
import { startClock, summarize, thrownOutcome, urlSecrets } from './outcome.js';

/** Where and how to POST; the receiver's URL and credentials never appear in the outcome. */
export interface HttpReceiver {
  url: string;
  verifyTls: boolean;
  timeoutMs: number;
  basicAuth?: { username: string; password: string } | null;
  /** Credentials sent some other way (a token in a header): redacted from the outcome like the URL's. */
  secrets?: readonly string[];
}

/** The JSON body and any headers beyond those postJson sets (Content-Type, User-Agent, Authorization). */
export interface JsonRequest {
  body: string;
  headers?: Record<string, string>;
}

/** Judges a receiver's answer; httpOutcome unless a service has quirks of its own (see teams.ts). */
export type AnswerJudge = (result: PostResult, latencyMs: number, secrets: readonly string[]) => DeliveryOutcome;

/**
 * POSTs the request built by `build` and reports the outcome; never throws. The request is built inside the
 * guarded section so that a payload that cannot be formatted is a failed delivery, not a crash of the worker.
 */
export async function postToReceiver(
  receiver: HttpReceiver,
  options: DeliveryOptions,
  build: () => JsonRequest,
  judge: AnswerJudge = httpOutcome,
): Promise<DeliveryOutcome> {
  const elapsed = startClock();
  const secrets = [...urlSecrets(receiver.url), ...basicAuthSecrets(receiver.basicAuth), ...(receiver.secrets ?? [])];
  try {
    const request = build();
    const result = await postJson(receiver.url, request.body, request.headers ?? {}, {
      policy: options.policy,
      timeoutMs: receiver.timeoutMs,
      verifyTls: receiver.verifyTls,
      maxResponseBytes: options.maxResponseBytes,
      userAgent: options.userAgent,
      basicAuth: receiver.basicAuth ?? null,
    });
    return judge(result, elapsed(), secrets);
  } catch (err) {
    return thrownOutcome(err, elapsed(), secrets);
  }
}

/** The password, and the Authorization header value carrying it, which a receiver may echo back. */
function basicAuthSecrets(auth: HttpReceiver['basicAuth']): string[] {
  if (!auth?.password) return [];
  return [auth.password, Buffer.from(`${auth.username}:${auth.password}`).toString('base64')];
}

/** 2xx is delivered; a failing or throttling receiver (5xx, 408, 429) may recover, any other answer will not. */
export function httpOutcome(result: PostResult, latencyMs: number, secrets: readonly string[]): DeliveryOutcome {
  const ok = result.status >= 200 && result.status < 300;
  return {
    ok,
    httpStatus: result.status,
    smtpResponse: null,
    response: answerSummary(result, secrets),
    error: ok ? null : `receiver answered HTTP ${result.status}`,
    latencyMs,
    retryable: !ok && isRetryableStatus(result.status),
  };
}

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** "HTTP 404: no_service", the body cut to fit, marked when the receiver sent more than was read. */
function answerSummary(result: PostResult, secrets: readonly string[]): string {
  const body = result.body.trim();
  return summarize(`HTTP ${result.status}${body ? `: ${body}` : ''}${result.truncated ? ' …' : ''}`, secrets);
}
