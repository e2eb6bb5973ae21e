/**
 * What an outbound request fails with. The message is safe to show to whoever asked for the request: it names
 * at most the URL's host and port (paths, queries and userinfo are credentials for Slack/Teams/webhooks and
 * signed feed URLs). `detail` is for the server log only.
 *
 * 'unreachable' covers every way of getting no HTTP answer — the address refused by the outbound policy, a name
 * that does not resolve, a refused or reset connection, no route, no answer in time — with one message, so the
 * answer cannot be used to tell a blocked address from a closed port, or a closed port from an open one.
 */
export type OutboundFailure =
  /** No answer, for whatever reason; which one is in `detail` (log only). */
  | 'unreachable'
  /** The TLS handshake with an allowed address failed (certificate, protocol, or the port does not speak TLS). */
  | 'tls'
  /** A redirect that is not followed: another receiver, a scheme other than http(s), or too many hops. */
  | 'redirect'
  | 'bad_url'
  /** The answer started and then broke off or stalled. */
  | 'response';

export interface OutboundErrorFacts {
  /** The precise cause, for the server log only: never put it in an API answer. Default: the message. */
  detail?: string;
  /** The socket or TLS error code, for 'tls' and 'response' (ETIMEDOUT for a stalled answer). */
  code?: string;
  /** host[:port] of the URL the failure concerns (a redirect's target, for a failed hop). */
  host?: string;
}

export class OutboundError extends Error {
  readonly detail: string;
  readonly code?: string;
  readonly host?: string;

  constructor(
    readonly reason: OutboundFailure,
    message: string,
    facts: OutboundErrorFacts = {},
  ) {
    super(message);
    this.name = 'OutboundError';
    this.detail = facts.detail ?? message;
    this.code = facts.code;
    this.host = facts.host;
  }
}

/** The one message of every 'unreachable' failure for `host` (host[:port] as in the URL). */
export function unreachableMessage(host: string): string {
  return `cannot reach ${host}: the address is not allowed or did not answer`;
}

export function unreachable(host: string, detail: string): OutboundError {
  return new OutboundError('unreachable', unreachableMessage(host), { detail, host });
}
