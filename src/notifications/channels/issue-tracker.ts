/**
 * What the GitHub and Jira channels share: both open an issue per notification, titled and written from the one
 * description Slack, Teams and e-mail also format (describe.ts), in the tracker's own markup; and both judge the
 * tracker's answer the same way (the shared HTTP classification, a created issue named in the receipt, refusals
 * explained in the tracker's terms).
 */
import type { DeliveryOutcome, NotificationMessage } from '../types.js';
import type { PostResult } from '../../outbound/post-json.js';
import { clip, describeNotification } from './describe.js';
import { httpOutcome, type AnswerJudge } from './http-outcome.js';
import { summarize } from './outcome.js';

/** GitHub titles and Jira summaries: one line, Jira's limit (GitHub allows 256). */
const TITLE_MAX_CHARS = 255;
/** A summary or fact is cut to this before markup, which keeps a body far below both trackers' limits (32 KiB, 64 KiB). */
const TEXT_MAX_CHARS = 2000;

/** A tracker's markup: how data is shown as typed, and how the facts table is written. */
export interface IssueMarkup {
  /** Escapes text so the tracker shows it as typed: no emphasis, links, mentions or macros made of data. */
  escape(text: string): string;
  /** The header of the facts table. */
  tableHeader: string;
  /** One row of the facts table, from escaped name and value. */
  tableRow(name: string, value: string): string;
}

export interface IssueText {
  title: string;
  body: string;
}

export function issueText(message: NotificationMessage, markup: IssueMarkup): IssueText {
  const { title, summary, facts } = describeNotification(message);
  const cell = (text: string) => markup.escape(oneLine(clip(text, TEXT_MAX_CHARS))) || ' ';
  const body = [
    markup.escape(clip(summary, TEXT_MAX_CHARS)),
    '',
    markup.tableHeader,
    ...facts.map((fact) => markup.tableRow(cell(fact.name), cell(fact.value))),
    '',
    `_${markup.escape(`Sent by Vigil (notification ${message.id}).`)}_`,
    '',
  ].join('\n');
  return { title: clip(oneLine(`[Vigil] ${title}`), TITLE_MAX_CHARS), body };
}

/** How a tracker's answers read. */
export interface TrackerAnswers {
  /** The tracker's name, as errors say it ("GitHub"). */
  service: string;
  /** What a refusal with this status means; other statuses get the shared wording. */
  refusals: Readonly<Record<number, string>>;
  /** The created issue named from the tracker's JSON answer ("#12 https://..."), or null when it does not say. */
  created(answer: Record<string, unknown>): string | null;
  /** A refusal that is really throttling, which passes. */
  throttled?(result: PostResult): boolean;
}

/** The shared HTTP classification (2xx delivered; 5xx, 408, 429 retried), with the tracker's own words added. */
export function trackerJudge(answers: TrackerAnswers): AnswerJudge {
  return (result, latencyMs, secrets): DeliveryOutcome => {
    const outcome = httpOutcome(result, latencyMs, secrets);
    if (outcome.ok) {
      const issue = answers.created(parseObject(result.body));
      return issue ? { ...outcome, response: summarize(`HTTP ${result.status}: created issue ${issue}`, secrets) } : outcome;
    }
    const throttled = answers.throttled?.(result) ?? false;
    const meaning = throttled ? 'throttled the request' : answers.refusals[result.status];
    return {
      ...outcome,
      error: meaning ? `${answers.service} ${meaning} (HTTP ${result.status})` : outcome.error,
      retryable: outcome.retryable || throttled,
    };
  };
}

/** The answer as a JSON object, or {} when it is not one (or was cut short). */
function parseObject(body: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A tracker base URL with a path appended after its own (a context path, /api/v3), its query kept. A base that is
 * not a URL (stored ones are checked) is joined as text, and the outbound layer refuses it as a failed delivery.
 */
export function apiUrl(base: string, path: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return `${base}${path}`;
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url.toString();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
