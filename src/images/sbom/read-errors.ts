/** The one error SBOM import raises: a validation error (HTTP 400) naming the format and the offending field. */
import { InvalidError } from '../../errors.js';

export type SbomFormat = 'syft' | 'cyclonedx' | 'spdx';

export const FORMAT_LABELS: Record<SbomFormat, string> = { syft: 'syft JSON', cyclonedx: 'CycloneDX', spdx: 'SPDX' };

export class SbomReadError extends InvalidError {
  constructor(
    message: string,
    readonly format: SbomFormat | null,
    /** JSONPath-like location of the problem (`components[3].name`), empty for the document itself. */
    readonly field: string,
  ) {
    super(message, { format, field });
  }
}
