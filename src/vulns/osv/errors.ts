/** The error a malformed OSV record raises, so feed readers can skip and count it instead of aborting the feed. */
import { InvalidError } from '../../errors.js';

export class OsvRecordError extends InvalidError {
  constructor(
    /** JSON path of the offending field inside the record, e.g. `affected[0].ranges[1].events[2]`. */
    readonly field: string,
    /** What is wrong with it, without the path. */
    readonly problem: string,
    /** The record's id when it was readable before the failure. */
    readonly recordId?: string,
  ) {
    super(`${recordId ? `${recordId}: ` : ''}${field}: ${problem}`, {
      field,
      ...(recordId ? { record_id: recordId } : {}),
    });
  }
}
