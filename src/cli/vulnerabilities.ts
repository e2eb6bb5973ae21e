/**
 * Findings as the CLI shows and gates on them, shared by `image vulns` and `sbom scan`: the table columns,
 * the --kev filter and the --fail-on severity threshold.
 */
import type { components } from '../../generated/openapi-types.js';
import { CliError, EXIT } from './exit-codes.js';
import type { Column, Style, View } from './output.js';
import type { Command } from 'commander';
import type { Session } from './session.js';

type Finding = components['schemas']['PackageVulnerability'];
type Severity = NonNullable<Finding['severity']>;

/** The spec's severity scale, lowest first. */
export const SEVERITIES: readonly Severity[] = ['Unknown', 'Negligible', 'Low', 'Medium', 'High', 'Critical'];

export function parseSeverity(value: string): Severity {
  const found = SEVERITIES.find((s) => s.toLowerCase() === value.toLowerCase());
  if (!found) throw new CliError(`error: unknown severity ${value} (one of ${SEVERITIES.map((s) => s.toLowerCase()).join(', ')})`);
  return found;
}

const SEVERITY_STYLES: Partial<Record<string, Style>> = { Critical: 'red', High: 'red', Medium: 'yellow', Low: 'cyan' };

const COLUMNS: Column<Finding>[] = [
  { header: 'vulnerability', value: (v) => v.vuln },
  { header: 'severity', value: (v) => v.severity, style: (t) => SEVERITY_STYLES[t] },
  { header: 'package', value: (v) => v.package_name },
  { header: 'version', value: (v) => v.package_version },
  { header: 'type', value: (v) => v.package_type },
  { header: 'fix', value: (v) => v.fix },
  { header: 'kev', value: (v) => (v.is_kev ? 'yes' : ''), style: (t) => (t ? 'red' : undefined) },
  { header: 'path', value: (v) => v.package_path },
];

export interface GateOptions {
  failOn?: string;
  kev?: boolean;
}

/**
 * Prints the findings (all of the API's answer for json/yaml, unless --kev narrows it) and settles on exit
 * code 1 when any shown finding is at or above the --fail-on severity.
 */
export function showFindings<A extends { vulnerabilities: Finding[] }>(session: Session, cmd: Command, answer: A, options: GateOptions): void {
  const threshold = options.failOn === undefined ? undefined : SEVERITIES.indexOf(parseSeverity(options.failOn));
  const shown = options.kev ? answer.vulnerabilities.filter((v) => v.is_kev) : answer.vulnerabilities;
  const view: View<Finding> = { data: options.kev ? { ...answer, vulnerabilities: shown } : answer, rows: shown, columns: COLUMNS };
  session.print(cmd, view);
  if (threshold === undefined) return;
  const over = shown.filter((v) => SEVERITIES.indexOf(v.severity ?? 'Unknown') >= threshold);
  if (over.length > 0) {
    session.note(`${over.length} finding(s) at or above ${SEVERITIES[threshold]}${options.kev ? ' (known exploited)' : ''}: failing`);
    session.fail(EXIT.failed);
  }
}
