/** Errors of report queries; the GraphQL layer reports them as errors naming the argument at fault. */
import { InvalidError } from '../errors.js';

export class ReportInputError extends InvalidError {
  constructor(
    message: string,
    /** The argument at fault, as the client wrote it (`limit`, `nextToken`, `filter.vulnerability.after`). */
    readonly argument: string,
  ) {
    super(message, { argument });
  }
}
