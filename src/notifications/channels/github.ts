/**
 * GitHub issues: each notification opens an issue in the configured repository
 * (`POST {api}/repos/{owner}/{repo}/issues`, the token as a Bearer credential) with a Markdown body, and the
 * configured labels, assignees and milestone. GitHub Enterprise Server works the same at `https://HOST/api/v3`.
 */
import type { GitHubTarget, NotificationMessage } from '../types.js';
import { postToReceiver } from './http-outcome.js';
import { apiUrl, issueText, trackerJudge, type IssueMarkup } from './issue-tracker.js';
import type { DeliveryChannel } from './outcome.js';

/** The REST API version the request is written for (GitHub answers in it whatever its default). */
const API_VERSION = '2022-11-28';

/**
 * Markdown where data shows as typed: every ASCII punctuation character that can start markup is backslash-escaped,
 * and `@` is split from what follows by an empty HTML comment, so a package or user name never mentions anyone.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+\-.!|~&]/g, '\\$&').replace(/@/g, '@<!-- -->');
}

const MARKDOWN: IssueMarkup = {
  escape: escapeMarkdown,
  tableHeader: '| Fact | Value |\n| --- | --- |',
  tableRow: (name, value) => `| ${name} | ${value} |`,
};

export function githubIssue(message: NotificationMessage, target: Pick<GitHubTarget, 'labels' | 'assignees' | 'milestone'>): object {
  return {
    ...issueText(message, MARKDOWN),
    ...(target.labels.length > 0 ? { labels: target.labels } : {}),
    ...(target.assignees.length > 0 ? { assignees: target.assignees } : {}),
    ...(target.milestone !== null ? { milestone: target.milestone } : {}),
  };
}

export function githubIssuesUrl(target: Pick<GitHubTarget, 'apiUrl' | 'owner' | 'repository'>): string {
  return apiUrl(target.apiUrl, `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repository)}/issues`);
}

const githubOutcome = trackerJudge({
  service: 'GitHub',
  refusals: {
    401: 'refused the access token',
    403: 'refused: the token may not create issues in this repository',
    404: 'found no such repository, or the token cannot see it',
    410: 'has issues disabled in this repository',
    422: 'refused the issue: a label, assignee or milestone may not exist',
  },
  created: (issue) => (typeof issue.number === 'number' ? `#${issue.number}${typeof issue.html_url === 'string' ? ` ${issue.html_url}` : ''}` : null),
  // Primary and secondary rate limits answer 403 (or 429) with a message that says so.
  throttled: (result) => (result.status === 403 || result.status === 429) && /rate limit/i.test(result.body),
});

export const githubChannel: DeliveryChannel<GitHubTarget> = {
  kind: 'github',
  deliver(target, message, options) {
    const receiver = { url: githubIssuesUrl(target), verifyTls: target.verifyTls, timeoutMs: target.timeoutMs, secrets: [target.accessToken] };
    return postToReceiver(
      receiver,
      options,
      () => ({
        body: JSON.stringify(githubIssue(message, target)),
        headers: { Authorization: `Bearer ${target.accessToken}`, Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': API_VERSION },
      }),
      githubOutcome,
    );
  },
};
