/**
 * Jira issues: each notification creates an issue (`POST {url}/rest/api/2/issue`, HTTP Basic with the user name
 * and API token or password) in the configured project, of the configured type, with the configured priority,
 * assignee and labels, and a description in Jira wiki markup. REST API v2 takes the same plain-text fields on
 * Jira Cloud, Server and Data Center.
 */
import type { JiraTarget, NotificationMessage } from '../types.js';
import { postToReceiver } from './http-outcome.js';
import { apiUrl, issueText, trackerJudge, type IssueMarkup } from './issue-tracker.js';
import type { DeliveryChannel } from './outcome.js';

/**
 * Wiki markup where data shows as typed: the characters that start emphasis, tables, links and mentions
 * (`[~user]`), macros (`{code}`), emoticons (`(y)`) and citations are backslash-escaped.
 */
export function escapeWiki(text: string): string {
  return text.replace(/[\\*_{}[\]|^~+\-?!#()]/g, '\\$&');
}

const WIKI: IssueMarkup = {
  escape: escapeWiki,
  tableHeader: '||Fact||Value||',
  tableRow: (name, value) => `|${name}|${value}|`,
};

/**
 * Jira Cloud names users by account id (`5b10ac8d82e05b22cc7d4ef5`, `557058:f58131cb-...`); Server and Data
 * Center by user name. An assignee that has the form of an account id is sent as one.
 */
const ACCOUNT_ID = /^(?:[0-9a-f]{24}|\d+:[0-9a-f-]{36})$/i;

export function jiraAssignee(assignee: string): { accountId: string } | { name: string } {
  return ACCOUNT_ID.test(assignee) ? { accountId: assignee } : { name: assignee };
}

export function jiraIssue(message: NotificationMessage, target: Pick<JiraTarget, 'projectKey' | 'issueType' | 'priority' | 'assignee' | 'labels'>): object {
  const { title, body } = issueText(message, WIKI);
  return {
    fields: {
      project: { key: target.projectKey },
      issuetype: { name: target.issueType },
      summary: title,
      description: body,
      ...(target.priority ? { priority: { name: target.priority } } : {}),
      ...(target.assignee ? { assignee: jiraAssignee(target.assignee) } : {}),
      ...(target.labels.length > 0 ? { labels: target.labels } : {}),
    },
  };
}

const jiraOutcome = trackerJudge({
  service: 'Jira',
  refusals: {
    400: 'refused the issue: check the project key, issue type, priority, assignee and labels',
    401: 'refused the user name or API token',
    403: 'refused: the user may not create issues in this project',
    404: 'has no REST API at this URL',
  },
  created: (issue) => (typeof issue.key === 'string' ? issue.key : null),
});

export const jiraChannel: DeliveryChannel<JiraTarget> = {
  kind: 'jira',
  deliver(target, message, options) {
    const receiver = {
      url: apiUrl(target.url, '/rest/api/2/issue'),
      verifyTls: target.verifyTls,
      timeoutMs: target.timeoutMs,
      basicAuth: { username: target.username, password: target.password },
    };
    return postToReceiver(receiver, options, () => ({ body: JSON.stringify(jiraIssue(message, target)), headers: { Accept: 'application/json' } }), jiraOutcome);
  },
};
