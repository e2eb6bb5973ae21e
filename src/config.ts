/**
 * Service configuration, read once from environment variables (prefix VIGIL_).
 * A bad value stops start-up with a message that names the variable; docs/configuration.md lists them all.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { validateCronExpression } from 'cron';
import { type ContentScanConfig, type NamedPattern, DEFAULT_RETRIEVE_FILES, DEFAULT_SECRET_PATTERNS } from './images/scanners/index.js';
import { compilePattern } from './images/scanners/regex-search.js';
import { OutboundPolicy } from './outbound/policy.js';
import { type NodeRole, parseRoles, ROLE_NAMES } from './system/node-roles.js';
import { closestName } from './util/edit-distance.js';
import { defaultFeedSources, nvdFeedSources } from './vulns/sources/default-feeds.js';

export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** postgres:// URL; null means the embedded SQLite database under dataDir. */
  databaseUrl: string | null;
  adminPassword: string | null;
  /** Key for secrets stored encrypted (registry passwords); null means a key file generated in dataDir. */
  encryptionKey: string | null;
  logLevel: string;
  /** VIGIL_LOG_FORMAT: JSON lines, readable lines (log-format.ts), or readable when stdout is a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** VIGIL_ROLES: the parts of the service this process runs (src/system/node-roles.ts), in canonical order. */
  roles: NodeRole[];
  /** This node's name in the service registry (GET /v2/system/services), unique among the nodes of a database. */
  hostId: string;
  /** How often this node refreshes its service registrations; a registration is stale after three missed beats. */
  heartbeatSeconds: number;
  bodyLimitBytes: number;
  tls: { certFile: string; keyFile: string } | null;
  jwt: {
    algorithm: JwtAlgorithm;
    /** HS256 secret; null means one generated once and kept in the database. */
    secret: string | null;
    privateKeyPem: string | null;
    publicKeyPem: string | null;
  };
  tokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** The SAML service provider's key: when set, AuthnRequests of SP-initiated logins are signed with it. */
  saml: { spPrivateKeyPem: string | null; spCertificatePem: string | null };
  /** OpenID Connect: how soon after fetching a provider's keys an unknown key id may fetch them again. */
  oidc: { jwksCooldownSeconds: number };
  auth: { maxFailures: number; failureWindowSeconds: number; lockoutSeconds: number; passwordCacheSeconds: number };
  argon2: { memoryCostKib: number; timeCost: number };
  shutdownTimeoutMs: number;
  worker: { concurrency: number; leaseMs: number; pollMs: number; retryBaseMs: number };
  analysis: { maxExpandedBytes: number; maxEntries: number; registryTimeoutMs: number; maxUploadBytes: number; content: ContentScanConfig };
  /** How often watched tags and repositories are checked; 0 turns watching off. */
  watchIntervalSeconds: number;
  feeds: FeedConfig;
  inventory: InventoryConfig;
  reports: ReportsConfig;
  notifications: NotificationsConfig;
  outbound: OutboundConfig;
  /** GET /metrics: open when both are null; otherwise a scrape must bring the bearer token or the basic credentials. */
  prometheus: { bearerToken: string | null; basicAuth: { username: string; password: string } | null };
}

/** Allow-lists of internal addresses outbound requests may reach (all other non-public addresses are refused). */
export interface OutboundConfig {
  /** VIGIL_OUTBOUND_ALLOW as given: hosts, addresses and CIDRs every outbound request may reach. */
  allow: string | null;
  /** VIGIL_REGISTRY_ALLOW as given: more of them, for registries (and their token services) only. */
  registryAllow: string | null;
}

/** Delivery of notifications (webhook, Slack, Teams, e-mail). */
export interface NotificationsConfig {
  /** Run the dispatcher on this node (queuing happens wherever events are recorded). */
  dispatcher: boolean;
  /** Tries per notification before it is marked failed. */
  maxTries: number;
  /** First retry delay; each further retry doubles it (with jitter), up to backoffMaxMs. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Deliveries in flight at once on this node. */
  concurrency: number;
  /** How often the dispatcher looks for due notifications. */
  pollMs: number;
  /** Largest part of a receiver's answer read (and kept in a receipt summary). */
  maxResponseBytes: number;
  /** Delivered and failed notifications (and their receipts) older than this many days are deleted. */
  retentionDays: number;
}

export interface ReportsConfig {
  /** How often the reporting read model applies logged changes: the bound on how stale GraphQL data is. */
  refreshIntervalSeconds: number;
  /** Serve the GraphiQL browser at /v2/reports/graphql. */
  graphiql: boolean;
  /** When the metrics collector samples; null turns collection off. */
  metricsSchedule: string | null;
  /** Collected metric values older than this many days are deleted. */
  metricsRetentionDays: number;
  /** Run scheduled queries on this node. */
  scheduler: boolean;
  /** Largest GraphQL answer (estimated JSON), and largest page of a scheduled query's result; an error beyond. */
  maxResponseBytes: number;
}

/** Runtime inventory (images reported running in Kubernetes and ECS clusters). */
export interface InventoryConfig {
  /** Items and cluster objects not seen in a report for this long are deleted. */
  ttlSeconds: number;
  /** Queue images seen running that the account has not analyzed yet. */
  analyze: boolean;
  /** At most this many images are queued per report, so a large cluster does not flood the queue. */
  analyzeMaxPerReport: number;
  /** Largest inventory report body: reports of large clusters run to megabytes, far above the general body limit. */
  maxReportBytes: number;
}

/** A configured vulnerability data source: a path or http(s) URL to a file, directory or zip. */
export interface FeedSourceConfig {
  /** Explicit `name=` prefix; null means derived from the location. */
  name: string | null;
  location: string;
}

export interface FeedConfig {
  sources: FeedSourceConfig[];
  /** Cron expression for scheduled syncs; null turns them off. */
  syncSchedule: string | null;
  syncOnStart: boolean;
  maxDownloadBytes: number;
  downloadTimeoutMs: number;
  /** The largest OSV record (its JSON) an import accepts; a larger one is skipped and counted. */
  maxRecordBytes: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function optional(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `expected a number from ${min} to ${max}, got ${n}`);
  return n;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function size(env: Env, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const m = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(raw.trim());
  if (!m) throw new ConfigError(name, `expected a size such as 1048576, 512kb or 1mb, got "${raw}"`);
  const n = Number(m[1]) * SIZE_UNITS[(m[2] ?? '').toLowerCase()];
  if (n < 1024) throw new ConfigError(name, `must be at least 1kb, got ${n} bytes`);
  if (n > max) throw new ConfigError(name, `must be at most ${max} bytes, got ${n}`);
  return n;
}

function readPem(env: Env, name: string): string | null {
  const path = optional(env, name);
  if (!path) return null;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(name, `cannot read ${path}: ${(err as Error).message}`);
  }
}

/** A node's host id: also a path segment of /v2/system/services/{service_name}/{host_id}. */
// At most 64 characters (Linux's host name limit): claims store the node id with a process token in 128 (jobs.locked_by).
export const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

const FEED_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** One `[name=]location` entry; relative paths are resolved against the working directory. */
function feedSource(variable: string, entry: string): FeedSourceConfig {
  const eq = entry.indexOf('=');
  const named = eq > 0 && !/^[a-z][a-z0-9+.-]*:\/\//i.test(entry.slice(0, eq)) && !entry.slice(0, eq).includes('/');
  const name = named ? entry.slice(0, eq).trim() : null;
  const location = (named ? entry.slice(eq + 1) : entry).trim();
  if (name !== null && !FEED_NAME.test(name))
    throw new ConfigError(variable, `feed name "${name}" must be lower-case letters, digits, '.', '_' or '-' (up to 64)`);
  if (!location) throw new ConfigError(variable, `entry "${entry}" has no location`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    if (!/^https?:\/\//i.test(location)) throw new ConfigError(variable, `only http(s) URLs and paths are supported, got "${location}"`);
    return { name, location };
  }
  return { name, location: resolve(location) };
}

function feedSources(env: Env): FeedSourceConfig[] {
  const entries: { variable: string; entry: string }[] = [];
  for (const entry of (optional(env, 'VIGIL_FEED_SOURCES') ?? '').split(','))
    if (entry.trim()) entries.push({ variable: 'VIGIL_FEED_SOURCES', entry: entry.trim() });
  const file = optional(env, 'VIGIL_FEED_SOURCES_FILE');
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError('VIGIL_FEED_SOURCES_FILE', `cannot read ${file}: ${(err as Error).message}`);
    }
    for (const line of text.split('\n')) {
      const entry = line.replace(/#.*$/, '').trim();
      if (entry) entries.push({ variable: 'VIGIL_FEED_SOURCES_FILE', entry });
    }
  }
  const expanded: FeedSourceConfig[] = [];
  const sources: FeedSourceConfig[] = [];
  for (const e of entries) {
    const keyword = FEED_SET_KEYWORDS.get(e.entry);
    if (keyword) expanded.push(...keyword().map((s) => ({ name: s.name, location: s.location })));
    else sources.push(feedSource(e.variable, e.entry));
  }
  const names = sources.map((s) => s.name).filter((n): n is string => n !== null);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new ConfigError('VIGIL_FEED_SOURCES', `feed name "${dup}" is used twice`);
  // A source named like one of a set replaces it (a mirror for one ecosystem); the set's own entries are unique.
  const given = new Set(names);
  const fromSets = [...new Map(expanded.filter((s) => !given.has(s.name!)).map((s) => [s.name, s])).values()];
  return [...fromSets, ...sources];
}

/**
 * Entries that stand for a set of public sources (sources/default-feeds.ts): `default` (OSV exports of the ecosystems
 * Vigil matches, KEV, EPSS) and `nvd` (NVD's yearly CVE files). A local path of that name is written `./default`.
 */
const FEED_SET_KEYWORDS = new Map<string, () => { name: string; location: string }[]>([
  ['default', defaultFeedSources],
  ['nvd', () => nvdFeedSources()],
]);

function cronSchedule(env: Env, name: string, fallback: string): string | null {
  const raw = str(env, name, fallback).trim();
  if (raw === 'off') return null;
  const check = validateCronExpression(raw);
  if (!check.valid) throw new ConfigError(name, `expected a cron expression such as "0 */6 * * *" or "off", got "${raw}"`);
  return raw;
}

/** Absolute paths, comma-separated; an empty value means none. */
function absolutePaths(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const paths = raw.split(',').map((p) => p.trim()).filter(Boolean);
  const bad = paths.find((p) => !p.startsWith('/') || p.split('/').some((part) => part === '.' || part === '..') || p.endsWith('/'));
  if (bad) throw new ConfigError(name, `expected absolute file paths such as /etc/passwd, got "${bad}"`);
  return paths;
}

/** A JSON object of expression names to Python-style regular expressions, each checked now. */
function namedPatterns(env: Env, name: string, fallback: NamedPattern[]): NamedPattern[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError(name, 'expected a JSON object of names to regular expressions, such as {"AWS_ACCESS_KEY": "(?i).*aws_access_key_id.*"}');
  return Object.entries(parsed).map(([patternName, regex]) => {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(patternName)) throw new ConfigError(name, `expression name "${patternName}" must be letters, digits, '_', '.' or '-' (up to 64)`);
    if (typeof regex !== 'string') throw new ConfigError(name, `expression ${patternName} must be a string`);
    try {
      compilePattern({ name: patternName, regex });
    } catch (err) {
      throw new ConfigError(name, (err as Error).message);
    }
    return { name: patternName, regex };
  });
}

function contentScanConfig(env: Env): ContentScanConfig {
  return {
    retrieveFiles: absolutePaths(env, 'VIGIL_RETRIEVE_FILES', DEFAULT_RETRIEVE_FILES),
    retrieveMaxBytes: size(env, 'VIGIL_RETRIEVE_FILES_MAX_BYTES', 1000 * 1024),
    secretSearch: namedPatterns(env, 'VIGIL_SECRET_SEARCH_REGEXES', DEFAULT_SECRET_PATTERNS),
    contentSearch: namedPatterns(env, 'VIGIL_CONTENT_SEARCH_REGEXES', []),
    searchMaxFileBytes: size(env, 'VIGIL_SEARCH_MAX_FILE_BYTES', 10_000),
  };
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw.trim())) return true;
  if (/^(false|0|no)$/i.test(raw.trim())) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

/** Checked now, so a typo stops start-up instead of silently refusing (or allowing) an address later. */
function allowList(env: Env, name: string): string | null {
  const raw = optional(env, name);
  try {
    OutboundPolicy.parse(raw);
  } catch (err) {
    throw new ConfigError(name, (err as Error).message);
  }
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  return readConfig(env);
}

/** Records the VIGIL_ names read through it, set or not. */
function recordingReads(env: Env, names: Set<string>): Env {
  return new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string' && key.startsWith('VIGIL_')) names.add(key);
      return Reflect.get(target, key);
    },
  });
}

let settingNamesRead: readonly string[] | undefined;

/**
 * Every variable the configuration reads, learned by reading one with nothing set: every read in readConfig is
 * unconditional, so no name is missed and the list cannot drift from the code (test/unit/config.test.ts holds it
 * against docs/configuration.md).
 */
export function settingNames(): readonly string[] {
  if (!settingNamesRead) {
    const names = new Set<string>();
    readConfig(recordingReads({}, names));
    settingNamesRead = [...names].sort();
  }
  return settingNamesRead;
}

export interface UnknownSetting {
  variable: string;
  /** The known setting nearest in spelling, when it is near enough to be the one meant. */
  closest: string | null;
}

/** VIGIL_ variables in `env` that no setting reads (typos, mostly), each with the setting it most likely meant. */
export function unknownSettings(env: Env = process.env): UnknownSetting[] {
  const known = settingNames();
  return Object.keys(env)
    .filter((variable) => variable.startsWith('VIGIL_') && !known.includes(variable))
    .sort()
    .map((variable) => ({ variable, closest: closestName(variable, known) }));
}

/** The start-up warning for one unknown variable. */
export function unknownSettingMessage({ variable, closest }: UnknownSetting): string {
  return `${variable} is not a Vigil setting and is ignored` + (closest ? `; did you mean ${closest}?` : ' (docs/configuration.md lists them)');
}

function readConfig(env: Env): Config {
  const databaseUrl = optional(env, 'VIGIL_DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new ConfigError('VIGIL_DATABASE_URL', 'expected a postgres:// URL (leave unset for the embedded SQLite database)');

  const logLevel = str(env, 'VIGIL_LOG_LEVEL', 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    throw new ConfigError('VIGIL_LOG_LEVEL', `expected one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);

  const logFormat = str(env, 'VIGIL_LOG_FORMAT', 'auto');
  if (logFormat !== 'auto' && logFormat !== 'json' && logFormat !== 'pretty')
    throw new ConfigError('VIGIL_LOG_FORMAT', `expected auto, json or pretty; got "${logFormat}"`);

  const hostId = str(env, 'VIGIL_HOST_ID', hostname());
  if (!HOST_ID.test(hostId))
    throw new ConfigError('VIGIL_HOST_ID', `expected 1-64 letters, digits, '.', '_', ':' or '-' (starting with a letter or digit), got "${hostId}"`);

  const roles = nodeRoles(env);

  const certFile = optional(env, 'VIGIL_TLS_CERT_FILE');
  const keyFile = optional(env, 'VIGIL_TLS_KEY_FILE');
  if (!!certFile !== !!keyFile)
    throw new ConfigError(certFile ? 'VIGIL_TLS_KEY_FILE' : 'VIGIL_TLS_CERT_FILE', 'TLS needs both a certificate and a key file');

  const algorithm = str(env, 'VIGIL_JWT_ALGORITHM', 'HS256') as JwtAlgorithm;
  if (!['HS256', 'RS256', 'ES256'].includes(algorithm))
    throw new ConfigError('VIGIL_JWT_ALGORITHM', `expected HS256, RS256 or ES256; got "${algorithm}"`);
  const secret = optional(env, 'VIGIL_JWT_SECRET');
  if (secret !== null && Buffer.byteLength(secret) < 32)
    throw new ConfigError('VIGIL_JWT_SECRET', 'must be at least 32 bytes long');
  const privateKeyPem = readPem(env, 'VIGIL_JWT_PRIVATE_KEY_FILE');
  const publicKeyPem = readPem(env, 'VIGIL_JWT_PUBLIC_KEY_FILE');
  if (algorithm !== 'HS256' && (!privateKeyPem || !publicKeyPem))
    throw new ConfigError(
      privateKeyPem ? 'VIGIL_JWT_PUBLIC_KEY_FILE' : 'VIGIL_JWT_PRIVATE_KEY_FILE',
      `${algorithm} needs both VIGIL_JWT_PRIVATE_KEY_FILE and VIGIL_JWT_PUBLIC_KEY_FILE`,
    );

  const spPrivateKeyPem = readPem(env, 'VIGIL_SAML_SP_KEY_FILE');
  const spCertificatePem = readPem(env, 'VIGIL_SAML_SP_CERT_FILE');
  if (!!spPrivateKeyPem !== !!spCertificatePem)
    throw new ConfigError(spPrivateKeyPem ? 'VIGIL_SAML_SP_CERT_FILE' : 'VIGIL_SAML_SP_KEY_FILE', 'signing SAML requests needs both a key and its certificate');
  if (spPrivateKeyPem) {
    try {
      createPrivateKey(spPrivateKeyPem);
    } catch (err) {
      throw new ConfigError('VIGIL_SAML_SP_KEY_FILE', `not a PEM private key: ${(err as Error).message}`);
    }
  }

  const adminPassword = optional(env, 'VIGIL_ADMIN_PASSWORD');
  if (adminPassword !== null && adminPassword.length < 8)
    throw new ConfigError('VIGIL_ADMIN_PASSWORD', 'must be at least 8 characters long');

  const encryptionKey = optional(env, 'VIGIL_ENCRYPTION_KEY');
  if (encryptionKey !== null && encryptionKey.length < 16)
    throw new ConfigError('VIGIL_ENCRYPTION_KEY', 'must be at least 16 characters long');

  return {
    host: str(env, 'VIGIL_HOST', '0.0.0.0'),
    port: int(env, 'VIGIL_PORT', 8228, 0, 65535),
    dataDir: resolve(str(env, 'VIGIL_DATA_DIR', './data')),
    databaseUrl,
    adminPassword,
    encryptionKey,
    logLevel,
    logFormat,
    roles,
    hostId,
    heartbeatSeconds: int(env, 'VIGIL_HEARTBEAT_SECONDS', 30, 1, 3600),
    bodyLimitBytes: size(env, 'VIGIL_BODY_LIMIT', 1024 * 1024),
    tls: certFile && keyFile ? { certFile, keyFile } : null,
    jwt: { algorithm, secret, privateKeyPem, publicKeyPem },
    tokenTtlSeconds: int(env, 'VIGIL_TOKEN_TTL_SECONDS', 3600, 60, 86400),
    refreshTokenTtlSeconds: int(env, 'VIGIL_REFRESH_TOKEN_TTL_SECONDS', 7 * 86400, 60, 90 * 86400),
    saml: { spPrivateKeyPem, spCertificatePem },
    oidc: { jwksCooldownSeconds: int(env, 'VIGIL_OIDC_JWKS_COOLDOWN_SECONDS', 30, 0, 3600) },
    auth: {
      maxFailures: int(env, 'VIGIL_AUTH_MAX_FAILURES', 10, 1, 1000),
      failureWindowSeconds: int(env, 'VIGIL_AUTH_FAILURE_WINDOW_SECONDS', 300, 1, 86400),
      lockoutSeconds: int(env, 'VIGIL_AUTH_LOCKOUT_SECONDS', 60, 1, 86400),
      passwordCacheSeconds: int(env, 'VIGIL_PASSWORD_CACHE_SECONDS', 60, 0, 3600),
    },
    argon2: {
      memoryCostKib: int(env, 'VIGIL_ARGON2_MEMORY_KIB', 19456, 1024, 1024 * 1024),
      timeCost: int(env, 'VIGIL_ARGON2_TIME_COST', 2, 1, 10),
    },
    shutdownTimeoutMs: int(env, 'VIGIL_SHUTDOWN_TIMEOUT_MS', 10000, 0, 600000),
    worker: {
      concurrency: int(env, 'VIGIL_ANALYSIS_CONCURRENCY', 2, 1, 64),
      leaseMs: int(env, 'VIGIL_JOB_LEASE_SECONDS', 60, 5, 3600) * 1000,
      pollMs: int(env, 'VIGIL_JOB_POLL_MS', 1000, 5, 60000),
      retryBaseMs: int(env, 'VIGIL_JOB_RETRY_BASE_MS', 5000, 1, 600000),
    },
    analysis: {
      maxExpandedBytes: size(env, 'VIGIL_MAX_IMAGE_BYTES', 32 * 1024 ** 3),
      maxEntries: int(env, 'VIGIL_MAX_IMAGE_ENTRIES', 2_000_000, 1, 100_000_000),
      registryTimeoutMs: int(env, 'VIGIL_REGISTRY_TIMEOUT_SECONDS', 30, 1, 600) * 1000,
      maxUploadBytes: size(env, 'VIGIL_MAX_UPLOAD_BYTES', 8 * 1024 ** 3),
      content: contentScanConfig(env),
    },
    watchIntervalSeconds: int(env, 'VIGIL_WATCH_INTERVAL_SECONDS', 300, 0, 7 * 86400),
    feeds: {
      sources: feedSources(env),
      syncSchedule: cronSchedule(env, 'VIGIL_FEED_SYNC_SCHEDULE', '17 */6 * * *'),
      syncOnStart: bool(env, 'VIGIL_FEED_SYNC_ON_START', true),
      maxDownloadBytes: size(env, 'VIGIL_FEED_MAX_DOWNLOAD', 4 * 1024 ** 3),
      downloadTimeoutMs: int(env, 'VIGIL_FEED_DOWNLOAD_TIMEOUT_SECONDS', 600, 1, 86400) * 1000,
      // A record becomes one string to parse: well below V8's string limit (about 512 MiB).
      maxRecordBytes: size(env, 'VIGIL_FEED_MAX_RECORD_BYTES', 16 * 1024 ** 2, 256 * 1024 ** 2),
    },
    inventory: {
      ttlSeconds: int(env, 'VIGIL_INVENTORY_TTL_SECONDS', 86400, 1, 365 * 86400),
      analyze: bool(env, 'VIGIL_INVENTORY_ANALYZE', true),
      analyzeMaxPerReport: int(env, 'VIGIL_INVENTORY_ANALYZE_MAX_PER_REPORT', 50, 1, 10000),
      maxReportBytes: size(env, 'VIGIL_INVENTORY_MAX_REPORT_BYTES', 64 * 1024 ** 2),
    },
    reports: {
      refreshIntervalSeconds: int(env, 'VIGIL_REPORTS_REFRESH_SECONDS', 2, 1, 3600),
      graphiql: bool(env, 'VIGIL_GRAPHIQL', true),
      metricsSchedule: cronSchedule(env, 'VIGIL_METRICS_SCHEDULE', '*/15 * * * *'),
      metricsRetentionDays: int(env, 'VIGIL_METRICS_RETENTION_DAYS', 400, 1, 36500),
      scheduler: bool(env, 'VIGIL_SCHEDULED_QUERIES', true),
      maxResponseBytes: size(env, 'VIGIL_GRAPHQL_MAX_RESPONSE_BYTES', 64 * 1024 ** 2),
    },
    notifications: {
      dispatcher: bool(env, 'VIGIL_NOTIFICATIONS_DISPATCHER', true),
      maxTries: int(env, 'VIGIL_NOTIFY_MAX_TRIES', 8, 1, 100),
      backoffBaseMs: int(env, 'VIGIL_NOTIFY_BACKOFF_BASE_MS', 5000, 1, 3_600_000),
      backoffMaxMs: int(env, 'VIGIL_NOTIFY_BACKOFF_MAX_MS', 3_600_000, 1, 86_400_000),
      concurrency: int(env, 'VIGIL_NOTIFY_CONCURRENCY', 4, 1, 64),
      pollMs: int(env, 'VIGIL_NOTIFY_POLL_MS', 30_000, 5, 600_000),
      maxResponseBytes: size(env, 'VIGIL_NOTIFY_MAX_RESPONSE_BYTES', 64 * 1024),
      retentionDays: int(env, 'VIGIL_NOTIFY_RETENTION_DAYS', 30, 1, 3650),
    },
    outbound: {
      allow: allowList(env, 'VIGIL_OUTBOUND_ALLOW'),
      registryAllow: allowList(env, 'VIGIL_REGISTRY_ALLOW'),
    },
    prometheus: {
      bearerToken: optional(env, 'VIGIL_PROMETHEUS_TOKEN'),
      basicAuth: basicCredentials(env, 'VIGIL_PROMETHEUS_BASIC_AUTH'),
    },
  };
}

function nodeRoles(env: Env): NodeRole[] {
  const raw = str(env, 'VIGIL_ROLES', 'all');
  const parsed = parseRoles(raw);
  if ('unknown' in parsed)
    throw new ConfigError('VIGIL_ROLES', `"${parsed.unknown}" is not a role; expected "all" or a comma-separated list of ${ROLE_NAMES.join(', ')}`);
  return parsed.roles;
}

/** `user:password` (the password may contain colons). */
function basicCredentials(env: Env, name: string): { username: string; password: string } | null {
  const value = optional(env, name);
  if (value === null) return null;
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) throw new ConfigError(name, 'expected user:password with neither empty');
  return { username: value.slice(0, colon), password: value.slice(colon + 1) };
}
