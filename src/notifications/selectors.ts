/**
 * Selectors: which events a configuration is sent. A selector matches on the event's level, resource type and
 * type (a pattern where `*` is any run of characters); scope `account` covers the configuration's own
 * account, `global` every account (admin configurations only).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ADMIN_ACCOUNT } from '../auth/accounts.js';
import type { Db } from '../db/index.js';
import { InvalidError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';
import { getConfiguration } from './configurations.js';
import type { EndpointKind } from './types.js';

export type SelectorScope = 'account' | 'global';
export type SelectorLevel = '*' | 'info' | 'error';

export interface SelectorRecord {
  uuid: string;
  configuration_uuid: string;
  account_name: string;
  scope: SelectorScope;
  level: SelectorLevel;
  resource_type: string;
  type: string;
  created_at: string;
  last_updated: string;
}

export interface SelectorInput {
  scope: SelectorScope;
  event: { level: SelectorLevel; resource_type: string; type: string };
}

/** The event fields a selector looks at. */
export interface SelectableEvent {
  account_name: string;
  level: 'INFO' | 'ERROR';
  resource_type: string;
  type: string;
}

const patternCache = new Map<string, RegExp>();

function typePattern(pattern: string): RegExp {
  let re = patternCache.get(pattern);
  if (!re) {
    re = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.?+^$()[\]{}|\\]/g, '\\$&')).join('.*')}$`);
    if (patternCache.size > 1000) patternCache.clear();
    patternCache.set(pattern, re);
  }
  return re;
}

export function selectorMatches(s: Pick<SelectorRecord, 'level' | 'resource_type' | 'type'>, event: SelectableEvent): boolean {
  if (s.level !== '*' && s.level.toUpperCase() !== event.level) return false;
  if (s.resource_type !== '*' && s.resource_type !== event.resource_type) return false;
  return typePattern(s.type).test(event.type);
}

function checkScope(accountName: string, scope: SelectorScope): void {
  if (scope === 'global' && accountName !== ADMIN_ACCOUNT)
    throw new InvalidError(`scope 'global' is for configurations of the ${ADMIN_ACCOUNT} account; use 'account'`, {
      errors: [{ location: 'body.scope', message: 'global scope needs an admin configuration' }],
    });
}

export function selectorShape(s: SelectorRecord) {
  return {
    uuid: s.uuid,
    configuration_uuid: s.configuration_uuid,
    scope: s.scope,
    event: { level: s.level, resource_type: s.resource_type, type: s.type },
    created_at: s.created_at,
    last_updated: s.last_updated,
  };
}

export async function addSelector(db: Db, accountName: string, kind: EndpointKind, configurationUuid: string, input: SelectorInput): Promise<SelectorRecord> {
  await getConfiguration(db, accountName, kind, configurationUuid);
  checkScope(accountName, input.scope);
  const now = nowIso();
  const row: SelectorRecord = {
    uuid: randomUUID(),
    configuration_uuid: configurationUuid,
    account_name: accountName,
    scope: input.scope,
    ...input.event,
    created_at: now,
    last_updated: now,
  };
  await db('notification_selectors').insert(row);
  return row;
}

export async function listSelectors(db: Db, accountName: string, kind?: EndpointKind, configurationUuid?: string): Promise<SelectorRecord[]> {
  if (kind && configurationUuid) await getConfiguration(db, accountName, kind, configurationUuid);
  const q = db<SelectorRecord>('notification_selectors').where({ account_name: accountName });
  if (configurationUuid) q.andWhere({ configuration_uuid: configurationUuid });
  return q.orderBy([{ column: 'created_at' }, { column: 'uuid' }]);
}

export async function getSelector(db: Db, accountName: string, kind: EndpointKind, configurationUuid: string, uuid: string): Promise<SelectorRecord> {
  await getConfiguration(db, accountName, kind, configurationUuid);
  const row = await db<SelectorRecord>('notification_selectors').where({ account_name: accountName, configuration_uuid: configurationUuid, uuid }).first();
  if (!row) throw new NotFoundError(`selector '${uuid}' of ${kind} configuration '${configurationUuid}' does not exist`, { selector_uuid: uuid });
  return row;
}

export async function updateSelector(db: Db, accountName: string, kind: EndpointKind, configurationUuid: string, uuid: string, input: SelectorInput): Promise<SelectorRecord> {
  const current = await getSelector(db, accountName, kind, configurationUuid, uuid);
  checkScope(accountName, input.scope);
  const values = { scope: input.scope, ...input.event, last_updated: nowIso() };
  await db('notification_selectors').where({ uuid }).update(values);
  return { ...current, ...values };
}

export async function deleteSelector(db: Db, accountName: string, kind: EndpointKind, configurationUuid: string, uuid: string): Promise<void> {
  await getSelector(db, accountName, kind, configurationUuid, uuid);
  await db('notification_selectors').where({ uuid }).delete();
}

/** The configurations (of enabled kinds) with a selector matching the event; each once. */
export async function matchingConfigurations(db: Db, event: SelectableEvent): Promise<{ uuid: string; endpoint: EndpointKind }[]> {
  // Two indexed lookups (global selectors; the account's own) rather than one OR that scans every selector.
  const candidates = (scope: (q: Knex.QueryBuilder) => void) => {
    const q = db('notification_selectors as s')
      .join('notification_configurations as c', 'c.uuid', 's.configuration_uuid')
      .join('notification_endpoints as e', 'e.name', 'c.endpoint')
      .where('e.enabled', true)
      .select('s.level', 's.resource_type', 's.type', 'c.uuid', 'c.endpoint');
    scope(q);
    return q;
  };
  const rows: (Pick<SelectorRecord, 'level' | 'resource_type' | 'type'> & { uuid: string; endpoint: EndpointKind })[] = [
    ...(await candidates((q) => q.where({ 's.scope': 'global' }))),
    ...(await candidates((q) => q.where({ 's.scope': 'account', 's.account_name': event.account_name }))),
  ];
  const out = new Map<string, { uuid: string; endpoint: EndpointKind }>();
  for (const r of rows) if (selectorMatches(r, event)) out.set(r.uuid, { uuid: r.uuid, endpoint: r.endpoint });
  return [...out.values()];
}
