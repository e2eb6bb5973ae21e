/**
 * The outbox and selector matching on a real (scratch) database: which configurations an event reaches (scopes,
 * levels, resource types, type patterns, disabled kinds), claims that two dispatchers cannot both win, claims of a
 * killed process released at start, and the retention sweep that deletes settled notifications with their receipts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ACCOUNT, createAccount } from '../../../src/auth/accounts.js';
import type { Db } from '../../../src/db/index.js';
import { recordEvent } from '../../../src/events/events.js';
import { createConfiguration } from '../../../src/notifications/configurations.js';
import { setEndpointEnabled } from '../../../src/notifications/endpoints.js';
import { claimDue, deleteSettledBefore, nextDueAt, queueNotificationsForEvents, releaseAbandonedClaims, settleAttempt } from '../../../src/notifications/outbox.js';
import { addSelector, selectorMatches, type SelectorInput } from '../../../src/notifications/selectors.js';
import type { EndpointKind } from '../../../src/notifications/types.js';
import { SecretBox } from '../../../src/util/secret-box.js';
import { createTestDb } from '../../support/db.js';

let db: Db;
let close: () => Promise<void>;
const box = SecretBox.fromConfig('outbox-test-encryption-key', '/nonexistent');

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  queueNotificationsForEvents(); // as createServices wires it
  await createAccount(db, { name: ADMIN_ACCOUNT, type: 'admin' }).catch(() => undefined);
  for (const name of ['team-a', 'team-b']) await createAccount(db, { name, type: 'user' });
});
afterAll(() => close());

async function configWith(account: string, kind: EndpointKind, selector: SelectorInput): Promise<string> {
  const input = kind === 'smtp' ? { host: 'mail.example.com', port: 25, from: 'v@example.com', to: 'o@example.com' } : { url: `https://${kind}.example.com/hook` };
  const saved = await createConfiguration(db, box, account, kind, input);
  await addSelector(db, account, kind, saved.record.uuid, selector);
  return saved.record.uuid;
}

const queuedFor = async (eventId: string) =>
  ((await db('notifications').where({ event_id: eventId }).select('configuration_uuid')) as { configuration_uuid: string }[]).map((r) => r.configuration_uuid).sort();

describe('selectorMatches', () => {
  const event = { account_name: 'team-a', level: 'ERROR' as const, resource_type: 'image_digest', type: 'user.image.analysis.failed' };
  it.each([
    ['*', '*', '*', true],
    ['error', 'image_digest', 'user.image.analysis.failed', true],
    ['info', '*', '*', false],
    ['*', 'image_tag', '*', false],
    ['*', '*', 'user.*', true],
    ['*', '*', '*.failed', true],
    ['*', '*', 'user.image.*.failed', true],
    ['*', '*', 'user.image', false],
    ['*', '*', 'user_image_analysis_failed', false],
    ['*', '*', 'user.image.analysis.failed.', false],
  ] as const)('level %s, resource %s, type %s: %s', (level, resource_type, type, expected) => {
    expect(selectorMatches({ level, resource_type, type }, event)).toBe(expected);
  });
  it('treats . as a literal dot, not any character', () => {
    expect(selectorMatches({ level: '*', resource_type: '*', type: 'user.image.analysis.failed' }, { ...event, type: 'userXimage.analysis.failed' })).toBe(false);
  });
});

describe('which configurations an event reaches', () => {
  it('account scope stays in its account; global scope (admin) sees every account; disabled kinds get nothing', async () => {
    const all: SelectorInput = { scope: 'account', event: { level: '*', resource_type: '*', type: 'user.*' } };
    const teamA = await configWith('team-a', 'webhook', all);
    const teamB = await configWith('team-b', 'slack', all);
    const adminOwn = await configWith(ADMIN_ACCOUNT, 'teams', all);
    const adminGlobal = await configWith(ADMIN_ACCOUNT, 'webhook', { scope: 'global', event: { level: 'error', resource_type: '*', type: '*' } });
    const teamAInfoOnly = await configWith('team-a', 'smtp', { scope: 'account', event: { level: 'info', resource_type: 'image_tag', type: 'user.checks.*' } });

    const failed = await recordEvent(db, { accountName: 'team-a', type: 'user.image.analysis.failed', resourceType: 'image_digest', resourceId: 'sha256:1' });
    expect(await queuedFor(failed.id)).toEqual([teamA, adminGlobal].sort());
    const moved = await recordEvent(db, { accountName: 'team-a', type: 'user.checks.tag.update', resourceType: 'image_tag', resourceId: 'x:1', details: { previous_digest: 'a', current_digest: 'b' } });
    expect(await queuedFor(moved.id)).toEqual([teamA, teamAInfoOnly].sort());
    const adminEvent = await recordEvent(db, { accountName: ADMIN_ACCOUNT, type: 'user.image.analysis.completed', resourceType: 'image_digest', resourceId: 'sha256:2' });
    expect(await queuedFor(adminEvent.id)).toEqual([adminOwn]);

    await setEndpointEnabled(db, 'webhook', false);
    try {
      const whileDisabled = await recordEvent(db, { accountName: 'team-a', type: 'user.image.analysis.failed', resourceType: 'image_digest', resourceId: 'sha256:3' });
      expect(await queuedFor(whileDisabled.id)).toEqual([]);
    } finally {
      await setEndpointEnabled(db, 'webhook', true);
    }
    expect(await queuedFor(failed.id)).not.toContain(teamB);
  });
});

describe('claims', () => {
  it('one of two racing dispatchers wins each notification; a killed process\'s claims are released at once', async () => {
    await db('notifications').delete();
    await db('notification_configurations').delete(); // the earlier test's global selector would match these events too
    const uuid = await configWith('team-b', 'teams', { scope: 'account', event: { level: '*', resource_type: '*', type: 'system.*' } });
    for (let i = 0; i < 6; i++) await recordEvent(db, { accountName: 'team-b', type: 'system.repository.list_tags_fail', resourceType: 'repository', resourceId: `r${i}` });
    const [first, second] = await Promise.all([claimDue(db, 'host:p1:a', 6, 60_000, 3), claimDue(db, 'host:p2:b', 6, 60_000, 3)]);
    const ids = [...first, ...second].map((r) => r.id);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    expect(await claimDue(db, 'host:p3:c', 6, 60_000, 3)).toEqual([]);

    // p1 died: a new process on the same host (p3) releases its claims, and not those of p3 itself.
    expect(await releaseAbandonedClaims(db, 'host:', 'host:p3:')).toBe(6);
    const again = await claimDue(db, 'host:p3:c', 6, 60_000, 3);
    expect(again).toHaveLength(6);
    expect(await releaseAbandonedClaims(db, 'host:', 'host:p3:')).toBe(0);
    // A settlement by a dispatcher that lost the claim records nothing.
    const lost = await settleAttempt(db, 'host:p1:a', again[0]!, { ok: true, httpStatus: 200, smtpResponse: null, response: 'ok', error: null, latencyMs: 1, retryable: false }, new Date().toISOString(), null);
    expect(lost).toBeNull();
    expect(Number((await db('notification_receipts').where({ notification_id: again[0]!.id }).count({ n: '*' }).first())!.n)).toBe(0);
    expect(again.every((r) => r.configuration_uuid === uuid)).toBe(true);
  });
  it("at start, releases only its own node's claims, reading the node id literally (no LIKE wildcards)", async () => {
    await db('notifications').delete();
    await db('notification_configurations').delete();
    await configWith('team-b', 'teams', { scope: 'account', event: { level: '*', resource_type: '*', type: 'system.*' } });
    for (const id of ['mine', 'other']) await recordEvent(db, { accountName: 'team-b', type: 'system.repository.list_tags_fail', resourceType: 'repository', resourceId: id });
    const [mine] = await claimDue(db, 'node_a%:earlier.1:d', 1, 60_000, 3);
    // `_` and `%` as LIKE wildcards would make this another node's claim look like one of node_a%'s.
    const [other] = await claimDue(db, 'nodeXabc:earlier.1:d', 1, 60_000, 3);
    expect(await releaseAbandonedClaims(db, 'node_a%:', 'node_a%:now.2:')).toBe(1);
    const states = Object.fromEntries((await db('notifications').select('id', 'state')).map((r: { id: string; state: string }) => [r.id, r.state]));
    expect(states).toEqual({ [mine!.id]: 'pending', [other!.id]: 'delivering' });
  });
});

describe('when delivery is next due', () => {
  it('is the earliest pending try or lapsing claim, leaving out kinds that are turned off', async () => {
    await db('notifications').delete();
    await db('notification_configurations').delete();
    expect(await nextDueAt(db)).toBeNull();
    await configWith('team-a', 'slack', { scope: 'account', event: { level: '*', resource_type: '*', type: 'system.*' } });
    await recordEvent(db, { accountName: 'team-a', type: 'system.repository.list_tags_fail', resourceType: 'repository', resourceId: 'due' });
    const [row] = await db('notifications').select('next_attempt_at');
    expect(await nextDueAt(db)).toBe(row.next_attempt_at);
    // A kind turned off would otherwise look due for ever, and delivery would run without pause.
    await setEndpointEnabled(db, 'slack', false);
    try {
      expect(await nextDueAt(db)).toBeNull();
    } finally {
      await setEndpointEnabled(db, 'slack', true);
    }
    const [claimed] = await claimDue(db, 'host:p7:n', 1, 60_000, 3);
    expect(await nextDueAt(db)).toBe(claimed!.claimed_until);
  });
});

describe('retention', () => {
  it('deletes settled notifications older than the cut-off, with their receipts, and keeps queued ones', async () => {
    await db('notifications').delete();
    await db('notification_configurations').delete();
    await configWith('team-a', 'slack', { scope: 'account', event: { level: '*', resource_type: '*', type: 'system.*' } });
    for (let i = 0; i < 3; i++) await recordEvent(db, { accountName: 'team-a', type: 'system.repository.list_tags_fail', resourceType: 'repository', resourceId: `old${i}` });
    const claimed = await claimDue(db, 'host:p9:z', 2, 60_000, 3);
    for (const [i, r] of claimed.entries())
      await settleAttempt(db, 'host:p9:z', r, { ok: i === 0, httpStatus: i === 0 ? 200 : 400, smtpResponse: null, response: '', error: i === 0 ? null : 'refused', latencyMs: 1, retryable: false }, new Date().toISOString(), null);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await deleteSettledBefore(db, future)).toBe(2);
    const left = await db('notifications').select('state');
    expect(left).toEqual([{ state: 'pending' }]);
    expect(Number((await db('notification_receipts').count({ n: '*' }).first())!.n)).toBe(0);
  });
});
