/**
 * Endpoint configurations: where an account's notifications of one kind go. Secret fields (URLs, which carry
 * tokens for Slack, Teams and most webhooks; passwords; the signing secret) are sealed with the SecretBox and
 * never leave this module except as a delivery target.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { InvalidError, NotFoundError } from '../errors.js';
import type { SecretBox } from '../util/secret-box.js';
import { nowIso } from '../util/time.js';
import { redactUrl } from '../outbound/urls.js';
import type { DeliveryTarget, EndpointKind } from './types.js';

export type OperationalStatus = 'unknown' | 'healthy' | 'unhealthy';

export interface ConfigurationRecord {
  uuid: string;
  account_name: string;
  endpoint: EndpointKind;
  description: string | null;
  verify_tls: boolean;
  timeout_seconds: number;
  settings: string;
  secrets: string;
  url_shown: string | null;
  status: OperationalStatus;
  last_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  last_updated: string;
}

/** A configuration as the API receives it: the kind's fields, unchecked beyond the spec's schema. */
export type ConfigurationInput = Record<string, unknown>;

interface KindFields {
  /** Kept in clear, shown in responses. */
  settings: readonly string[];
  /** Sealed, never shown (a URL is shown redacted). */
  secrets: readonly string[];
  /** Secrets a configuration cannot deliver without; an update that would clear one is refused. */
  requiredSecrets?: readonly string[];
  /** Settings a configuration left out take these values. */
  defaults?: Readonly<Record<string, unknown>>;
}

const FIELDS: Record<EndpointKind, KindFields> = {
  webhook: { settings: ['username'], secrets: ['url', 'password', 'signing_secret'] },
  slack: { settings: [], secrets: ['url'] },
  teams: { settings: [], secrets: ['url'] },
  smtp: { settings: ['host', 'port', 'username', 'use_tls', 'from', 'to'], secrets: ['password'] },
  // The API URLs of GitHub and Jira are not credentials (the token and password are): shown as configured.
  github: {
    settings: ['url', 'username', 'owner', 'repository', 'milestone', 'labels', 'assignees'],
    secrets: ['access_token'],
    requiredSecrets: ['access_token'],
    defaults: { url: 'https://api.github.com' },
  },
  jira: { settings: ['url', 'username', 'project_key', 'issue_type', 'priority', 'assignee', 'labels'], secrets: ['password'], requiredSecrets: ['password'] },
};

const DEFAULT_TIMEOUT_SECONDS = 10;

function invalid(field: string, message: string): InvalidError {
  return new InvalidError(`${field} ${message}`, { errors: [{ location: `body.${field}`, message }] });
}

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('url', 'is not a URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('url', 'must start with http:// or https://');
  if (parsed.hash) throw invalid('url', 'must not have a #fragment');
}

// An address, optionally with a display name: `ops@example.com` or `Ops <ops@example.com>`.
const MAILBOX = /^(?:[^<>@,]*<[^\s<>@,]+@[^\s<>@,]+>|[^\s<>@,]+@[^\s<>@,]+)$/;

function checkMailboxes(field: string, value: string): void {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.some((p) => !MAILBOX.test(p))) throw invalid(field, 'must be e-mail addresses separated by commas');
}

function checkSmtpHost(host: string): void {
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw invalid('host', 'must be a host name or IP address');
}

/** The kind-specific checks the schema cannot express. */
function checkFields(kind: EndpointKind, values: Record<string, unknown>): void {
  if (typeof values.url === 'string') checkUrl(values.url);
  for (const name of FIELDS[kind].requiredSecrets ?? []) if (typeof values[name] !== 'string' || values[name] === '') throw invalid(name, 'is required');
  if (kind === 'smtp') {
    checkSmtpHost(String(values.host));
    checkMailboxes('from', String(values.from));
    checkMailboxes('to', String(values.to));
  }
}

function pick(input: ConfigurationInput, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((n) => input[n] !== undefined && input[n] !== null).map((n) => [n, input[n]]));
}

/** The clear settings of a configuration, defaults filled in. */
function settingsOf(kind: EndpointKind, input: ConfigurationInput): Record<string, unknown> {
  return { ...FIELDS[kind].defaults, ...pick(input, FIELDS[kind].settings) };
}

/** The value a client sends back for a secret it only saw redacted (or left out) keeps the stored one. */
function mergeSecrets(kind: EndpointKind, input: ConfigurationInput, stored: Record<string, unknown>, shownUrl: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const name of FIELDS[kind].secrets) {
    const value = input[name];
    if (value === undefined || value === null) continue;
    if (name === 'url' && value === shownUrl) continue;
    if (name !== 'url' && value === '') {
      delete out[name]; // an empty password clears it
      continue;
    }
    out[name] = value;
  }
  return out;
}

export interface SavedConfiguration {
  record: ConfigurationRecord;
  /** A signing secret the service generated: shown once, in the answer to the create. */
  generatedSigningSecret: string | null;
}

function rowValues(box: SecretBox, kind: EndpointKind, input: ConfigurationInput, secrets: Record<string, unknown>) {
  const settings = settingsOf(kind, input);
  checkFields(kind, { ...settings, ...secrets });
  const verifyTls = (input.verify_tls ?? input.verify_ssl ?? true) as boolean;
  return {
    description: (input.description as string | undefined) ?? null,
    verify_tls: verifyTls,
    timeout_seconds: (input.timeout_seconds as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS,
    settings: JSON.stringify(settings),
    secrets: box.seal(JSON.stringify(secrets)),
    url_shown: typeof secrets.url === 'string' ? redactUrl(secrets.url) : null,
  };
}

export async function createConfiguration(db: Db, box: SecretBox, accountName: string, kind: EndpointKind, input: ConfigurationInput): Promise<SavedConfiguration> {
  const secrets = pick(input, FIELDS[kind].secrets);
  let generatedSigningSecret: string | null = null;
  if (kind === 'webhook' && !secrets.signing_secret) secrets.signing_secret = generatedSigningSecret = randomBytes(32).toString('base64url');
  const now = nowIso();
  const record = {
    uuid: randomUUID(),
    account_name: accountName,
    endpoint: kind,
    ...rowValues(box, kind, input, secrets),
    status: 'unknown' as const,
    last_attempt_at: null,
    last_error: null,
    created_at: now,
    last_updated: now,
  };
  await db('notification_configurations').insert(record);
  return { record, generatedSigningSecret };
}

const normalise = (r: ConfigurationRecord): ConfigurationRecord => ({ ...r, verify_tls: toBool(r.verify_tls) });

export async function getConfiguration(db: Db, accountName: string, kind: EndpointKind, uuid: string): Promise<ConfigurationRecord> {
  const row = await db<ConfigurationRecord>('notification_configurations').where({ account_name: accountName, endpoint: kind, uuid }).first();
  if (!row) throw new NotFoundError(`${kind} configuration '${uuid}' does not exist`, { configuration_uuid: uuid });
  return normalise(row);
}

export async function listConfigurations(db: Db, accountName: string, kind: EndpointKind): Promise<ConfigurationRecord[]> {
  const rows = await db<ConfigurationRecord>('notification_configurations').where({ account_name: accountName, endpoint: kind }).orderBy([{ column: 'created_at' }, { column: 'uuid' }]);
  return rows.map(normalise);
}

export async function updateConfiguration(db: Db, box: SecretBox, accountName: string, kind: EndpointKind, uuid: string, input: ConfigurationInput): Promise<ConfigurationRecord> {
  const current = await getConfiguration(db, accountName, kind, uuid);
  const secrets = mergeSecrets(kind, input, JSON.parse(box.open(current.secrets)), current.url_shown);
  const values = { ...rowValues(box, kind, input, secrets), last_updated: nowIso() };
  await db('notification_configurations').where({ uuid }).update(values);
  return { ...current, ...values };
}

export async function deleteConfiguration(db: Db, accountName: string, kind: EndpointKind, uuid: string): Promise<void> {
  await db.transaction(async (trx) => {
    await getConfiguration(trx, accountName, kind, uuid);
    // Receipts and selectors go by cascade; notifications are deleted first so their receipts follow.
    await trx('notifications').where({ configuration_uuid: uuid }).delete();
    await trx('notification_configurations').where({ uuid }).delete();
  });
}

/** What the API shows: clear settings and the redacted URL; never a secret. */
export function configurationShape(r: ConfigurationRecord): Record<string, unknown> {
  return {
    uuid: r.uuid,
    ...(r.description !== null ? { description: r.description } : {}),
    verify_tls: r.verify_tls,
    timeout_seconds: r.timeout_seconds,
    created_at: r.created_at,
    last_updated: r.last_updated,
    ...(r.url_shown !== null ? { url: r.url_shown } : {}),
    ...(JSON.parse(r.settings) as Record<string, unknown>),
  };
}

/** Settings and unsealed secrets as a delivery target. */
export function deliveryTarget(box: SecretBox, r: Pick<ConfigurationRecord, 'endpoint' | 'settings' | 'secrets' | 'verify_tls' | 'timeout_seconds'>): DeliveryTarget {
  const settings = JSON.parse(r.settings) as Record<string, unknown>;
  const secrets = JSON.parse(box.open(r.secrets)) as Record<string, unknown>;
  return targetOf(r.endpoint, { ...settings, ...secrets }, toBool(r.verify_tls), r.timeout_seconds);
}

/** A target from configuration fields, for a stored configuration or an unsaved one under test. */
export function targetOf(kind: EndpointKind, f: Record<string, unknown>, verifyTls: boolean, timeoutSeconds: number): DeliveryTarget {
  const base = { verifyTls, timeoutMs: timeoutSeconds * 1000 };
  const text = (name: string) => (typeof f[name] === 'string' && f[name] !== '' ? (f[name] as string) : null);
  const texts = (name: string) => (Array.isArray(f[name]) ? (f[name] as unknown[]).filter((v): v is string => typeof v === 'string') : []);
  switch (kind) {
    case 'webhook':
      return { ...base, kind, url: text('url')!, username: text('username'), password: text('password'), signingSecret: text('signing_secret') ?? '' };
    case 'slack':
    case 'teams':
      return { ...base, kind, url: text('url')! };
    case 'smtp':
      return {
        ...base,
        kind,
        host: text('host')!,
        port: Number(f.port),
        username: text('username'),
        password: text('password'),
        from: text('from')!,
        to: text('to')!,
        useTls: f.use_tls === undefined ? true : Boolean(f.use_tls),
      };
    case 'github':
      return {
        ...base,
        kind,
        apiUrl: text('url')!,
        accessToken: text('access_token')!,
        owner: text('owner')!,
        repository: text('repository')!,
        labels: texts('labels'),
        assignees: texts('assignees'),
        milestone: typeof f.milestone === 'number' ? f.milestone : null,
      };
    case 'jira':
      return {
        ...base,
        kind,
        url: text('url')!,
        username: text('username')!,
        password: text('password')!,
        projectKey: text('project_key')!,
        issueType: text('issue_type')!,
        priority: text('priority'),
        assignee: text('assignee'),
        labels: texts('labels'),
      };
  }
}

/** An unsaved configuration (the test route): checked like a stored one, never written. */
export function unsavedTarget(kind: EndpointKind, input: ConfigurationInput): DeliveryTarget {
  const fields = { ...settingsOf(kind, input), ...pick(input, FIELDS[kind].secrets) };
  checkFields(kind, fields);
  const verifyTls = (input.verify_tls ?? input.verify_ssl ?? true) as boolean;
  return targetOf(kind, fields, verifyTls, (input.timeout_seconds as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS);
}

export async function recordStatus(db: Db, uuid: string, outcome: { ok: boolean; error: string | null }, at: string): Promise<void> {
  await db('notification_configurations')
    .where({ uuid })
    .update({ status: outcome.ok ? 'healthy' : 'unhealthy', last_attempt_at: at, last_error: outcome.ok ? null : outcome.error });
}
