/**
 * CVSS vector strings as vulnerability records carry them (OSV severity[].score, NVD, GHSA): parse,
 * validate and compute the base score, subscores where the version has them, and the severity rating.
 * Versions: v2 (bare "AV:N/AC:L/Au:N/C:P/I:P/A:P"), v3.0, v3.1 and v4.0 ("CVSS:x.y/..." prefix).
 */
import { CvssError } from './cvss-error.js';
import type { CvssScore } from './score.js';
import { scoreV2 } from './v2.js';
import { scoreV3 } from './v3.js';
import { scoreV4 } from './v4.js';

export { CvssError, type CvssErrorReason } from './cvss-error.js';
export type { CvssScore, CvssVersion } from './score.js';
export { qualitativeSeverity, v2Severity, type CvssSeverity } from './severity.js';

const PREFIX = /^CVSS:(\d+\.\d+)\//;

/**
 * Parses a CVSS vector and scores it. Throws CvssError (and nothing else) for anything that is not a
 * well-formed vector of a supported version: unknown, duplicate or missing metrics, or a wrong value.
 */
export function parseCvss(vector: string): CvssScore {
  // Callers pass JSON-sourced data; guard the type so the "only CvssError" promise holds for them too.
  if (typeof vector !== 'string') {
    throw new CvssError('not_a_string', `expected a string, got ${vector === null ? 'null' : typeof vector}`, String(vector));
  }
  const trimmed = vector.trim();
  if (trimmed === '') throw new CvssError('empty', 'the vector is empty', trimmed);

  const prefix = PREFIX.exec(trimmed);
  if (prefix === null) {
    // Only v2 vectors come without a "CVSS:x.y/" prefix.
    if (trimmed.startsWith('CVSS:')) {
      throw new CvssError('unsupported_version', 'expected a "CVSS:<version>/" prefix followed by metrics', trimmed);
    }
    return scoreV2(trimmed);
  }
  const body = trimmed.slice(prefix[0].length);
  switch (prefix[1]) {
    case '3.0':
    case '3.1':
      return scoreV3(prefix[1], trimmed, body);
    case '4.0':
      return scoreV4(trimmed, body);
    default:
      throw new CvssError('unsupported_version', `CVSS version ${prefix[1]} is not supported (2.0, 3.0, 3.1, 4.0 are)`, trimmed);
  }
}
