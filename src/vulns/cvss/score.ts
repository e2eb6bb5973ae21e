import type { CvssSeverity } from './severity.js';

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';

/** What parseCvss reports for one vector. Subscores exist only where the version defines them (v2, v3.x). */
export interface CvssScore {
  version: CvssVersion;
  /** Base score, 0.0-10.0, one decimal. For v4.0 this is CVSS-B (base metrics only). */
  baseScore: number;
  /** Exploitability subscore, one decimal (v2 and v3.x only). */
  exploitabilityScore?: number;
  /** Impact subscore, one decimal, never below 0 (v2 and v3.x only). */
  impactScore?: number;
  severity: CvssSeverity;
  /** The vector as given, without surrounding whitespace. */
  vector: string;
}
