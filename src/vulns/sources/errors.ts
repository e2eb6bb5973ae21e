/**
 * Typed errors of the vulnerability feed sources (KEV, EPSS, NVD, Alpine secdb, downloads). A source that is not what its
 * format requires, or cannot be downloaded, fails the whole sync: a partial feed must not pass for a complete one.
 * Single malformed items inside a well-formed source are skipped and counted by the readers instead.
 */
import { AppError } from '../../errors.js';

/** Kinds of source a FeedFormatError can name. */
export type FeedFormat = 'kev' | 'epss' | 'alpine-secdb' | 'nvd';

/** The source as a whole is not in its format: no `vulnerabilities` array, missing CSV columns, corrupt gzip. */
export class FeedFormatError extends AppError {
  constructor(
    readonly format: FeedFormat,
    message: string,
    /** The file the problem was found in, when there is one. */
    readonly source?: string,
  ) {
    super(422, 'invalid_feed', `${format}${source ? ` ${source}` : ''}: ${message}`, { format, ...(source ? { source } : {}) });
  }
}

export interface FeedFetchFailure {
  /** The URL without userinfo, query or fragment, safe to log and show. */
  url: string;
  /** HTTP status when the server answered (`status` is taken: it is this error's own status on our API). */
  httpStatus?: number;
  /**
   * The TLS or socket error code after the server answered, or ETIMEDOUT / ETOOLARGE for our own limits. Never set
   * when the server did not answer at all: that must look the same whatever the reason.
   */
  causeCode?: string;
}

/** A download failed: bad URL, non-2xx answer, too large, too slow, or no connection. Reported as 502 (upstream). */
export class FeedFetchError extends AppError {
  readonly url: string;
  readonly httpStatus?: number;
  readonly causeCode?: string;

  constructor(message: string, failure: FeedFetchFailure) {
    super(502, 'feed_fetch_failed', message, {
      url: failure.url,
      ...(failure.httpStatus !== undefined ? { http_status: failure.httpStatus } : {}),
      ...(failure.causeCode ? { cause_code: failure.causeCode } : {}),
    });
    this.url = failure.url;
    this.httpStatus = failure.httpStatus;
    this.causeCode = failure.causeCode;
  }
}
