/** The GitHub and Jira issue formats: where they go, what they carry, and that data never becomes markup. */
import { describe, expect, it } from 'vitest';
import { escapeMarkdown, githubIssue, githubIssuesUrl } from '../../../src/notifications/channels/github.js';
import { escapeWiki, jiraAssignee, jiraIssue } from '../../../src/notifications/channels/jira.js';
import { TAG, finding, notification, vulnUpdate } from './message-fixtures.js';

const NO_EXTRAS = { labels: [], assignees: [], milestone: null };

describe('GitHub issues', () => {
  it('go to the repository issues route under the API base, GitHub Enterprise context path and query kept', () => {
    expect(githubIssuesUrl({ apiUrl: 'https://api.github.com', owner: 'acme', repository: 'alerts' })).toBe('https://api.github.com/repos/acme/alerts/issues');
    expect(githubIssuesUrl({ apiUrl: 'https://ghe.example/api/v3/', owner: 'acme', repository: '.github' })).toBe('https://ghe.example/api/v3/repos/acme/.github/issues');
    expect(githubIssuesUrl({ apiUrl: 'https://ghe.example/api/v3?x=1', owner: 'a', repository: 'b' })).toBe('https://ghe.example/api/v3/repos/a/b/issues?x=1');
  });

  it('have a one-line title, a Markdown table of the facts, and only the labels, assignees and milestone configured', () => {
    const issue = githubIssue(vulnUpdate([finding('CVE-2024-0001', 'Critical', '3.0.14')]), { labels: ['sec'], assignees: ['octocat'], milestone: 2 }) as Record<string, unknown>;
    expect(issue.title).toBe(`[Vigil] Vulnerabilities changed in ${TAG}`);
    expect(issue.body).toContain('| Fact | Value |\n| --- | --- |\n| Account | acme |');
    expect(issue.body).toContain('| CVE\\-2024\\-0001 | Critical, openssl 3\\.0\\.2, fixed in 3\\.0\\.14 |');
    expect(issue).toMatchObject({ labels: ['sec'], assignees: ['octocat'], milestone: 2 });
    expect(Object.keys(githubIssue(vulnUpdate([]), NO_EXTRAS))).toEqual(['title', 'body']);
  });

  it('never mention anyone, link, or format from data', () => {
    expect(escapeMarkdown('@babel/core [x](http://e) *b* <img> | a')).toBe('@<!-- -->babel/core \\[x\\]\\(http://e\\) \\*b\\* \\<img\\> \\| a');
    const issue = githubIssue(notification('event', {}, { type: 'x', message: 'ping @security-team\nnow' }), NO_EXTRAS) as { body: string; title: string };
    expect(issue.body).toContain('ping @<!-- -->security\\-team');
    expect(issue.body).not.toMatch(/@security/);
  });
});

describe('Jira issues', () => {
  it('carry project, issue type, summary and wiki description, and the optional fields only when configured', () => {
    const target = { projectKey: 'VIG', issueType: 'Bug', priority: 'High', assignee: 'jdoe', labels: ['vigil'] };
    const { fields } = jiraIssue(vulnUpdate([]), target) as { fields: Record<string, any> };
    expect(fields).toMatchObject({ project: { key: 'VIG' }, issuetype: { name: 'Bug' }, priority: { name: 'High' }, assignee: { name: 'jdoe' }, labels: ['vigil'] });
    expect(fields.summary).toBe(`[Vigil] Vulnerabilities changed in ${TAG}`);
    expect(fields.description).toContain('||Fact||Value||\n|Account|acme|');
    const bare = jiraIssue(vulnUpdate([]), { ...target, priority: null, assignee: null, labels: [] }) as { fields: Record<string, unknown> };
    expect(Object.keys(bare.fields)).toEqual(['project', 'issuetype', 'summary', 'description']);
  });

  it('name a Jira Cloud assignee by account id and a Server one by user name', () => {
    expect(jiraAssignee('5b10ac8d82e05b22cc7d4ef5')).toEqual({ accountId: '5b10ac8d82e05b22cc7d4ef5' });
    expect(jiraAssignee('557058:f58131cb-b67d-43c7-b30d-6b58d40bd077')).toEqual({ accountId: '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077' });
    expect(jiraAssignee('jdoe')).toEqual({ name: 'jdoe' });
  });

  it('escape wiki markup in data: mentions, links, macros, tables, emphasis and emoticons', () => {
    expect(escapeWiki('[~admin] {code} |x| *b* (y) -s-')).toBe('\\[\\~admin\\] \\{code\\} \\|x\\| \\*b\\* \\(y\\) \\-s\\-');
  });

  it('keep a summary on one line within 255 characters', () => {
    const long = notification('event', {}, { type: `t${'x'.repeat(400)}\nsecond line` });
    const { fields } = jiraIssue(long, { projectKey: 'VIG', issueType: 'Bug', priority: null, assignee: null, labels: [] }) as { fields: { summary: string } };
    expect(Array.from(fields.summary)).toHaveLength(255);
    expect(fields.summary).not.toContain('\n');
  });
});
