/**
 * What a notification says, in plain text: a title, a one-paragraph summary and name/value facts. Slack, Teams
 * and e-mail all format this one description, so the three say the same thing; each formatter escapes the text
 * for its own markup. The payload is upstream data stored as JSON, so every field is read defensively: a
 * missing or oddly typed field gives a shorter description, never an exception.
 */
import type { NotificationMessage } from '../types.js';

export type NotificationSeverity = 'info' | 'warning' | 'error';

export interface Fact {
  name: string;
  value: string;
}

export interface NotificationDescription {
  title: string;
  summary: string;
  facts: Fact[];
  severity: NotificationSeverity;
}

/** Added findings listed one per fact; with the four common facts and the digest this stays within Slack's 10 fields. */
const TOP_FINDINGS = 5;
const SEVERITY_ORDER = ['Critical', 'High', 'Medium', 'Low', 'Negligible', 'Unknown'];

export function describeNotification(message: NotificationMessage): NotificationDescription {
  const specific = describeByType(message);
  return { ...specific, facts: [...commonFacts(message), ...specific.facts] };
}

/** Cuts text to at most `max` characters (code points), ending with an ellipsis when it was cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

function describeByType(message: NotificationMessage): NotificationDescription {
  switch (message.notificationType) {
    case 'vuln_update':
      return describeVulnUpdate(message);
    case 'policy_eval':
      return describePolicyEval(message);
    case 'tag_update':
      return describeTagUpdate(message);
    case 'analysis_update':
      return describeAnalysisUpdate(message);
    case 'test':
      return describeTest();
    default:
      // `event`, and any type a newer version stored that this one does not know
      return describeEvent(message);
  }
}

function commonFacts(message: NotificationMessage): Fact[] {
  const event = message.event;
  const resource = text(event?.resource_type) ? `${text(event?.resource_id)} (${text(event?.resource_type)})` : text(event?.resource_id);
  return [
    { name: 'Account', value: message.accountName },
    { name: 'Event type', value: text(event?.type) },
    { name: 'Resource', value: resource || subjectOf(message) },
    { name: 'Notification id', value: message.id },
  ];
}

// --- vuln_update ---------------------------------------------------------------------------------------------

interface Finding {
  vuln: string;
  severity: string;
  package: string;
  packageVersion: string;
  fix: string;
}

function describeVulnUpdate(message: NotificationMessage): NotificationDescription {
  const payload = message.payload;
  const tag = subjectOf(message);
  const diff = record(payload.diff_vulnerability_result);
  const added = findings(diff.added).sort(bySeverity);
  const updated = findings(diff.updated);
  const removed = findings(diff.removed);
  const shown = added.slice(0, TOP_FINDINGS);
  const summary = [
    `${count(added.length, 'vulnerability', 'vulnerabilities')} added, ${updated.length} updated and ${removed.length} removed in ${tag}.`,
    added.length > 0 ? `Added by severity: ${severityCounts(added)}.` : '',
    added.length > shown.length ? `The ${shown.length} most severe are listed.` : '',
  ];
  return {
    title: `Vulnerabilities changed in ${tag}`,
    summary: sentences(summary),
    facts: [...optionalFact('Image digest', text(payload.image_digest)), ...shown.map(findingFact)],
    severity: added.some((f) => f.severity === 'Critical') ? 'error' : added.some((f) => f.severity === 'High') ? 'warning' : 'info',
  };
}

function findings(value: unknown): Finding[] {
  return list(value).map((item) => {
    const raw = record(item);
    return {
      vuln: text(raw.vuln) || 'unnamed vulnerability',
      severity: normalSeverity(text(raw.severity)),
      package: text(raw.package),
      packageVersion: text(raw.package_version),
      fix: text(raw.fix),
    };
  });
}

function normalSeverity(severity: string): string {
  return SEVERITY_ORDER.find((known) => known.toLowerCase() === severity.toLowerCase()) ?? 'Unknown';
}

function bySeverity(a: Finding, b: Finding): number {
  return SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) || a.vuln.localeCompare(b.vuln);
}

function severityCounts(found: Finding[]): string {
  return SEVERITY_ORDER.map((severity) => [severity, found.filter((f) => f.severity === severity).length] as const)
    .filter(([, n]) => n > 0)
    .map(([severity, n]) => `${n} ${severity}`)
    .join(', ');
}

function findingFact(finding: Finding): Fact {
  const pkg = [finding.package, finding.packageVersion].filter(Boolean).join(' ');
  const fix = !finding.fix || finding.fix === 'None' ? 'no fix available' : `fixed in ${finding.fix}`;
  return { name: finding.vuln, value: [finding.severity, pkg, fix].filter(Boolean).join(', ') };
}

// --- policy_eval ---------------------------------------------------------------------------------------------

function describePolicyEval(message: NotificationMessage): NotificationDescription {
  const payload = message.payload;
  const tag = subjectOf(message);
  const curr = record(payload.curr_eval);
  const last = record(payload.last_eval);
  const status = text(curr.status);
  const action = text(curr.final_action);
  const reason = text(curr.final_action_reason);
  const previous = evalResult(last);
  const verdict = status === 'fail' ? 'failed' : status === 'pass' ? 'passed' : 'changed';
  const summary = [
    `The policy evaluation of ${tag} ${verdict}: ${evalResult(curr) || 'no result'}${previous ? `, previously ${previous}` : ''}.`,
    reason ? `Reason: ${endSentence(reason)}` : '',
  ];
  return {
    title: `Policy evaluation ${verdict} for ${tag}`,
    summary: sentences(summary),
    facts: [
      ...optionalFact('Image digest', text(payload.image_digest)),
      ...optionalFact('Policy id', text(payload.policy_id)),
      ...optionalFact('Result', evalResult(curr)),
      ...optionalFact('Previous result', previous),
    ],
    severity: status === 'fail' ? 'error' : action === 'warn' ? 'warning' : 'info',
  };
}

/** "fail (final action stop)", or "" when the evaluation carries no status. */
function evalResult(evaluation: Record<string, unknown>): string {
  const status = text(evaluation.status);
  const action = text(evaluation.final_action);
  return status ? `${status}${action ? ` (final action ${action})` : ''}` : '';
}

// --- tag_update ----------------------------------------------------------------------------------------------

function describeTagUpdate(message: NotificationMessage): NotificationDescription {
  const tag = subjectOf(message);
  const current = list(message.payload.curr_eval).map(text).filter(Boolean);
  const previous = list(message.payload.last_eval).map(text).filter(Boolean);
  const now = current.join(', ') || 'no image';
  const summary = previous.length > 0 ? `${tag} now points to ${now} (was ${previous.join(', ')}).` : `${tag} was seen for the first time, pointing to ${now}.`;
  return {
    title: `Tag updated: ${tag}`,
    summary,
    facts: [...optionalFact('Current digest', current.join(', ')), ...optionalFact('Previous digest', previous.join(', '))],
    severity: 'info',
  };
}

// --- analysis_update -----------------------------------------------------------------------------------------

function describeAnalysisUpdate(message: NotificationMessage): NotificationDescription {
  const payload = message.payload;
  const tag = subjectOf(message);
  const curr = record(payload.curr_eval);
  const status = text(curr.analysis_status);
  const previous = text(record(payload.last_eval).analysis_status);
  const digest = text(curr.image_digest) || text(payload.image_digest);
  const reason = text(payload.reason);
  const failed = status === 'analysis_failed';
  const outcome = failed ? 'could not be analyzed' : status === 'analyzed' ? 'was analyzed' : `is now ${status || 'in an unknown state'}`;
  const summary = [`The image ${digest ? `${digest} ` : ''}of ${tag} ${outcome}${previous ? ` (previously ${previous})` : ''}.`, reason ? `Reason: ${endSentence(reason)}` : ''];
  return {
    title: `${failed ? 'Analysis failed' : status === 'analyzed' ? 'Analysis complete' : 'Analysis status changed'}: ${tag}`,
    summary: sentences(summary),
    facts: [
      ...optionalFact('Image digest', digest),
      ...optionalFact('Analysis status', status),
      ...optionalFact('Previous status', previous),
      ...optionalFact('Reason', reason),
      ...optionalFact('Annotations', annotations(curr.annotations)),
    ],
    severity: failed ? 'error' : 'info',
  };
}

function annotations(value: unknown): string {
  return Object.entries(record(value))
    .map(([key, v]) => `${key}=${text(v)}`)
    .join(', ');
}

// --- event and test ------------------------------------------------------------------------------------------

function describeEvent(message: NotificationMessage): NotificationDescription {
  const event = message.event;
  const isError = event?.level === 'ERROR';
  return {
    title: `${isError ? 'Error' : 'Event'}: ${text(event?.type) || 'unknown event'}`,
    summary: text(event?.message) || `An event of type ${text(event?.type) || 'unknown'} was recorded.`,
    facts: [...optionalFact('Level', text(event?.level)), ...optionalFact('Time', text(event?.timestamp))],
    severity: isError ? 'error' : 'info',
  };
}

function describeTest(): NotificationDescription {
  return {
    title: 'Vigil test notification',
    summary: 'This is a test notification from Vigil. If you can read it, this notification endpoint is configured correctly.',
    facts: [],
    severity: 'info',
  };
}

// --- reading the payload -------------------------------------------------------------------------------------

/** What the notification is about: the subscribed tag, else the event's resource. */
function subjectOf(message: NotificationMessage): string {
  return text(message.payload.subscription_key) || text(message.event?.resource_id) || 'an unnamed resource';
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function optionalFact(name: string, value: string): Fact[] {
  return value ? [{ name, value }] : [];
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function endSentence(sentence: string): string {
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

function sentences(parts: string[]): string {
  return parts.filter(Boolean).join(' ');
}
