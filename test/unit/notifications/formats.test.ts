import { describe, expect, it } from 'vitest';
import { describeNotification } from '../../../src/notifications/channels/describe.js';
import { slackMessage } from '../../../src/notifications/channels/slack.js';
import { teamsMessage } from '../../../src/notifications/channels/teams.js';
import { signBody, verifySignature, webhookBody } from '../../../src/notifications/channels/webhook.js';
import { emailMessage } from '../../../src/notifications/channels/smtp.js';
import { DIGEST, OLD_DIGEST, TAG, finding, notification, vulnUpdate } from './message-fixtures.js';

const COMMON_FACTS = ['Account', 'Event type', 'Resource', 'Notification id'];

function factsOf(message: Parameters<typeof describeNotification>[0]): Record<string, string> {
  return Object.fromEntries(describeNotification(message).facts.map((f) => [f.name, f.value]));
}

describe('describeNotification', () => {
  it('vuln_update: counts, the most severe added findings first, error for an added Critical', () => {
    const added = [
      finding('CVE-2024-0005', 'Low'),
      finding('CVE-2024-0002', 'High', '3.0.13'),
      finding('CVE-2024-0007', 'Negligible'),
      finding('CVE-2024-0001', 'Critical', '3.0.14'),
      finding('CVE-2024-0004', 'Medium'),
      finding('CVE-2024-0003', 'High'),
      finding('CVE-2024-0006', 'Unknown'),
    ];
    const d = describeNotification(vulnUpdate(added, [finding('CVE-2023-9', 'Low')], [finding('CVE-2022-1', 'High'), finding('CVE-2022-2', 'Low')]));
    expect(d.severity).toBe('error');
    expect(d.title).toBe(`Vulnerabilities changed in ${TAG}`);
    expect(d.summary).toContain(`7 vulnerabilities added, 1 updated and 2 removed in ${TAG}.`);
    expect(d.summary).toContain('1 Critical, 2 High, 1 Medium, 1 Low, 1 Negligible, 1 Unknown');
    expect(d.facts.map((f) => f.name)).toEqual([...COMMON_FACTS, 'Image digest', 'CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003', 'CVE-2024-0004', 'CVE-2024-0005']);
    expect(d.facts[5].value).toBe('Critical, openssl 3.0.2, fixed in 3.0.14');
    expect(d.facts[7].value).toBe('High, openssl 3.0.2, no fix available');
  });

  it('vuln_update: warning for an added High, info when nothing severe was added', () => {
    expect(describeNotification(vulnUpdate([finding('CVE-1', 'High'), finding('CVE-2', 'Low')])).severity).toBe('warning');
    expect(describeNotification(vulnUpdate([finding('CVE-1', 'Medium')], [], [finding('CVE-2', 'Critical')])).severity).toBe('info');
  });

  it('always starts with account, event type, resource and notification id', () => {
    expect(factsOf(vulnUpdate([]))).toMatchObject({
      Account: 'acme',
      'Event type': 'user.checks.tag.vulnerabilities.update',
      Resource: `${TAG} (image_tag)`,
      'Notification id': 'ntf-0001',
    });
  });

  it('policy_eval: error when the current evaluation fails, with both results and the reason', () => {
    const message = notification('policy_eval', {
      image_digest: DIGEST,
      policy_id: 'default-bundle',
      last_eval: { status: 'pass', final_action: 'go', evaluation_time: '2025-01-01T00:00:00Z' },
      curr_eval: { status: 'fail', final_action: 'stop', evaluation_time: '2025-01-02T00:00:00Z', final_action_reason: 'policy_evaluation' },
    });
    const d = describeNotification(message);
    expect(d.severity).toBe('error');
    expect(d.title).toBe(`Policy evaluation failed for ${TAG}`);
    expect(d.summary).toContain('Reason: policy_evaluation.');
    expect(factsOf(message)).toMatchObject({ 'Policy id': 'default-bundle', Result: 'fail (final action stop)', 'Previous result': 'pass (final action go)' });
    const passing = notification('policy_eval', { curr_eval: { status: 'pass', final_action: 'go' } });
    expect(describeNotification(passing).severity).toBe('info');
  });

  it('tag_update: the current and previous digests, or first sight', () => {
    const moved = describeNotification(notification('tag_update', { last_eval: [OLD_DIGEST], curr_eval: [DIGEST] }));
    expect(moved.summary).toBe(`${TAG} now points to ${DIGEST} (was ${OLD_DIGEST}).`);
    expect(moved.facts.slice(4)).toEqual([
      { name: 'Current digest', value: DIGEST },
      { name: 'Previous digest', value: OLD_DIGEST },
    ]);
    expect(describeNotification(notification('tag_update', { last_eval: [], curr_eval: [DIGEST] })).summary).toContain('first time');
  });

  it('analysis_update: error and the reason when analysis failed', () => {
    const failed = notification('analysis_update', {
      curr_eval: { analysis_status: 'analysis_failed', image_digest: DIGEST, annotations: { team: 'web' } },
      last_eval: { analysis_status: 'analyzing', image_digest: DIGEST, annotations: {} },
      reason: 'manifest could not be read',
    });
    const d = describeNotification(failed);
    expect(d.severity).toBe('error');
    expect(d.title).toBe(`Analysis failed: ${TAG}`);
    expect(d.summary).toContain('Reason: manifest could not be read.');
    expect(factsOf(failed)).toMatchObject({ 'Image digest': DIGEST, Reason: 'manifest could not be read', Annotations: 'team=web' });
    const analyzed = notification('analysis_update', { curr_eval: { analysis_status: 'analyzed', image_digest: DIGEST } });
    expect(describeNotification(analyzed)).toMatchObject({ severity: 'info', title: `Analysis complete: ${TAG}` });
  });

  it('event: the event message, error for level ERROR', () => {
    const failed = notification('event', {}, { level: 'ERROR', message: 'Feed sync failed' });
    expect(describeNotification(failed)).toMatchObject({ severity: 'error', title: 'Error: system.feeds.sync.failed', summary: 'Feed sync failed' });
    expect(describeNotification(notification('event')).severity).toBe('info');
  });

  it('test: says the configuration works', () => {
    const d = describeNotification(notification('test'));
    expect(d).toMatchObject({ severity: 'info', title: 'Vigil test notification' });
    expect(d.summary).toContain('configured correctly');
    expect(d.facts.map((f) => f.name)).toEqual(COMMON_FACTS);
  });

  it('survives payloads of the wrong shape', () => {
    const odd = [
      notification('vuln_update', { diff_vulnerability_result: 'nope' }),
      notification('policy_eval', { curr_eval: [1, 2] }),
      notification('tag_update', { curr_eval: { a: 1 } }),
      notification('analysis_update', { curr_eval: null, subscription_key: 42 }),
    ];
    for (const message of odd) expect(describeNotification(message).facts.length).toBeGreaterThanOrEqual(4);
  });
});

describe('slackMessage', () => {
  type Block = { type: string; text?: { type: string; text: string }; fields?: { type: string; text: string }[]; elements?: { text: string }[] };
  const blocksOf = (message: ReturnType<typeof notification>) => (slackMessage(message) as { text: string; blocks: Block[] }).blocks;

  it('is a header, a summary, up to 10 fields and a context with the notification id', () => {
    const blocks = blocksOf(vulnUpdate([finding('CVE-1', 'Critical')]));
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(blocks[0].text).toEqual({ type: 'plain_text', text: `Vulnerabilities changed in ${TAG}`, emoji: false });
    expect(blocks[1].text?.type).toBe('mrkdwn');
    expect(blocks[2].fields?.length).toBeLessThanOrEqual(10);
    expect(blocks[2].fields?.[0]).toMatchObject({ type: 'mrkdwn', text: '*Account*\nacme' });
    expect(blocks[3].elements?.[0].text).toContain('ntf-0001');
  });

  it('keeps within Block Kit limits for long data', () => {
    const long = 'x'.repeat(5000);
    const message = notification('event', { subscription_key: long }, { type: long, message: long, resource_id: long });
    const blocks = blocksOf(message);
    expect(blocks[0].text?.text.length).toBeLessThanOrEqual(150);
    expect(blocks[1].text?.text.length).toBeLessThanOrEqual(3000);
    for (const field of blocks[2].fields ?? []) expect(field.text.length).toBeLessThanOrEqual(2000);
  });

  it('escapes &, < and > in mrkdwn and the fallback text', () => {
    const message = notification('event', {}, { message: '<script>alert(1)</script> & <!channel>', type: 'a<b>&c' });
    const body = slackMessage(message) as { text: string; blocks: Block[] };
    expect(body.blocks[1].text?.text).toBe('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;!channel&gt;');
    expect(body.text).toContain('&lt;script&gt;');
    expect(JSON.stringify(body.blocks.slice(1))).not.toMatch(/<script>|<!channel>|a<b>/);
    expect(body.blocks[0].text?.text).toBe('Event: a<b>&c'); // plain_text is shown literally
  });
});

describe('teamsMessage', () => {
  const cardOf = (message: ReturnType<typeof notification>) => {
    const body = teamsMessage(message) as { type: string; attachments: { contentType: string; contentUrl: null; content: Record<string, unknown> }[] };
    expect(body.type).toBe('message');
    expect(body.attachments).toHaveLength(1);
    expect(body.attachments[0]).toMatchObject({ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null });
    return body.attachments[0].content as { type: string; version: string; $schema: string; msteams: unknown; body: Record<string, unknown>[] };
  };

  it('is an Adaptive Card 1.4 with title, summary and facts', () => {
    const card = cardOf(vulnUpdate([finding('CVE-1', 'Critical')]));
    expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.4', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', msteams: { width: 'Full' } });
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', size: 'Large', weight: 'Bolder', color: 'Attention', text: `Vulnerabilities changed in ${TAG}` });
    expect(card.body[1]).toMatchObject({ type: 'TextBlock', wrap: true });
    const facts = card.body[2] as { type: string; facts: { title: string; value: string }[] };
    expect(facts.type).toBe('FactSet');
    expect(facts.facts.slice(0, 4).map((f) => f.title)).toEqual(COMMON_FACTS);
  });

  it('colours the title by severity and escapes Markdown in data', () => {
    expect(cardOf(vulnUpdate([finding('CVE-1', 'High')])).body[0].color).toBe('Warning');
    expect(cardOf(vulnUpdate([])).body[0].color).toBeUndefined();
    const card = cardOf(notification('event', {}, { message: 'see [here](http://evil) *now*' }));
    expect(card.body[1].text).toBe('see \\[here\\](http://evil) \\*now\\*');
  });
});

describe('webhook body and signature', () => {
  it('has the upstream NotificationBase shape', () => {
    const message = vulnUpdate([finding('CVE-1', 'High')]);
    const before = Math.floor(Date.now() / 1000);
    const body = JSON.parse(webhookBody(message, { tries: 2, maxTries: 5 }));
    expect(body).toMatchObject({
      queue_id: 'notifications',
      account_name: 'acme',
      data_id: 'ntf-0001',
      created_at: Math.floor(Date.parse('2025-01-02T03:04:05.678Z') / 1000),
      record_state_key: 'active',
      record_state_val: null,
      tries: 2,
      max_tries: 5,
      data: { notification_user: 'acme', notification_user_email: 'ops@acme.example', notification_type: 'vuln_update' },
    });
    expect(body.data.notification_payload).toEqual(message.payload);
    expect(Number.isInteger(body.last_updated) && body.last_updated >= before).toBe(true);
  });

  it('signs the body with HMAC-SHA256; a tampered body, another secret or a bad header fail', () => {
    const body = webhookBody(notification('test'), { tries: 1, maxTries: 1 });
    const signature = signBody(body, 's3cret');
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(body, 's3cret', signature)).toBe(true);
    expect(verifySignature(body.replace('acme', 'acmf'), 's3cret', signature)).toBe(false);
    expect(verifySignature(body, 'other', signature)).toBe(false);
    expect(verifySignature(body, 's3cret', signature.slice(0, -1))).toBe(false);
    expect(verifySignature(body, 's3cret', undefined)).toBe(false);
  });
});

describe('emailMessage', () => {
  const target = { from: 'vigil@acme.example', to: 'ops@acme.example, sec@acme.example' };

  it('has the subject, Message-ID and notification id header', () => {
    const mail = emailMessage(vulnUpdate([finding('CVE-1', 'Critical')]), target);
    expect(mail).toMatchObject({ from: target.from, to: target.to, subject: `[Vigil] Vulnerabilities changed in ${TAG}`, messageId: '<ntf-0001@vigil>' });
    expect(mail.headers).toEqual({ 'X-Vigil-Notification-Id': 'ntf-0001' });
    expect(mail.text).toContain(TAG);
    expect(mail.text).toContain('CVE-1: Critical, openssl 3.0.2, no fix available');
    expect(mail.html).toContain('<th align="left" valign="top" style="padding:2px 12px 2px 0">CVE-1</th>');
  });

  it('escapes HTML and keeps the subject on one line', () => {
    const mail = emailMessage(notification('event', {}, { message: '<img src=x onerror="alert(1)"> & \'q\'', type: 'evil\r\nBcc: x@y' }), target);
    expect(mail.html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;q&#39;');
    expect(mail.html).not.toContain('<img');
    expect(mail.subject).toBe('[Vigil] Event: evil Bcc: x@y');
  });
});
