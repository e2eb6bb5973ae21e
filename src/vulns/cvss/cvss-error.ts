import { InvalidError } from '../../errors.js';

/** Why a vector string was rejected; stable values callers and tests can branch on. */
export type CvssErrorReason =
  | 'not_a_string'
  | 'empty'
  | 'unsupported_version'
  | 'malformed_metric'
  | 'unknown_metric'
  | 'duplicate_metric'
  | 'missing_metric'
  | 'invalid_value';

/**
 * The only error the CVSS parsers throw. It is an InvalidError (400 validation_error) because a vector
 * usually reaches us as input (an OSV record, a policy, an API body) and a bad one is the input's fault.
 */
export class CvssError extends InvalidError {
  readonly reason: CvssErrorReason;
  readonly vector: string;

  constructor(reason: CvssErrorReason, message: string, vector: string, extra: { metric?: string; value?: string } = {}) {
    super(`invalid CVSS vector "${vector}": ${message}`, { reason, vector, ...extra });
    this.reason = reason;
    this.vector = vector;
  }
}
