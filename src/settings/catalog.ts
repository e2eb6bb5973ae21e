/**
 * The runtime settings: the few values an administrator can change while Vigil runs (/v2/system/configurations).
 * Each one is read where it is used, on each use, through RuntimeSettings (./runtime.ts), so a stored change counts
 * on every node without a restart; the environment variable named gives the default. Only settings whose every
 * reader goes through RuntimeSettings belong here.
 */
import { validateCronExpression } from 'cron';
import type { Config } from '../config.js';
import { InvalidError } from '../errors.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface SettingValues {
  /** A cron expression (UTC), or `off`. */
  'feeds.sync_schedule': string;
  'reports.refresh_interval_seconds': number;
  'inventory.ttl_seconds': number;
  log_level: (typeof LOG_LEVELS)[number];
}

export type SettingKey = keyof SettingValues;

interface IntegerSchema {
  data_type: 'integer';
  ge: number;
  le: number;
}
interface EnumSchema {
  data_type: 'string_enum';
  enum: readonly string[];
}
interface StringSchema {
  data_type: 'string';
  max_length: number;
  /** Why a string is not a valid value, or null. */
  check(value: string): string | null;
}

export interface SettingDefinition {
  key: SettingKey;
  title: string;
  description: string;
  category: string;
  schema: IntegerSchema | EnumSchema | StringSchema;
  /** The value when none is stored: from the node's configuration (its environment). */
  defaultOf(config: Config): SettingValues[SettingKey];
}

export const SETTINGS: readonly SettingDefinition[] = [
  {
    key: 'feeds.sync_schedule',
    title: 'Feed sync schedule',
    description:
      'When every vulnerability feed source is synced: a cron expression (five fields, or six with seconds first; UTC), or off. Default: VIGIL_FEED_SYNC_SCHEDULE. A change moves (or, with off, removes) the next scheduled sync at once.',
    category: 'feeds',
    schema: {
      data_type: 'string',
      max_length: 128,
      check: (value) => (value === 'off' || validateCronExpression(value).valid ? null : `must be a cron expression such as "0 */6 * * *" or "off", got ${JSON.stringify(value)}`),
    },
    defaultOf: (config) => config.feeds.syncSchedule ?? 'off',
  },
  {
    key: 'reports.refresh_interval_seconds',
    title: 'Reporting refresh interval',
    description:
      'Seconds between refreshes of the reporting read model, the bound on how stale GraphQL report data is. Default: VIGIL_REPORTS_REFRESH_SECONDS. A change moves the next refresh at once.',
    category: 'reports',
    schema: { data_type: 'integer', ge: 1, le: 3600 },
    defaultOf: (config) => config.reports.refreshIntervalSeconds,
  },
  {
    key: 'inventory.ttl_seconds',
    title: 'Runtime inventory lifetime',
    description:
      'Seconds an image or cluster object reported running stays without being reported again; older reports are refused. Default: VIGIL_INVENTORY_TTL_SECONDS.',
    category: 'inventory',
    schema: { data_type: 'integer', ge: 1, le: 365 * 86400 },
    defaultOf: (config) => config.inventory.ttlSeconds,
  },
  {
    key: 'log_level',
    title: 'Logging level',
    description:
      "The logging level of every node. Default: VIGIL_LOG_LEVEL. The node that takes the change applies it at once, the others at their next service heartbeat (VIGIL_HEARTBEAT_SECONDS); POST /v2/system/logging still changes one node's level until this setting changes again or the node restarts.",
    category: 'logging',
    schema: { data_type: 'string_enum', enum: LOG_LEVELS },
    defaultOf: (config) => config.logLevel as SettingValues['log_level'],
  },
];

const BY_KEY = new Map(SETTINGS.map((s) => [s.key as string, s]));

export function findSetting(key: string): SettingDefinition | undefined {
  return BY_KEY.get(key);
}

export function defaultValues(config: Config): SettingValues {
  return Object.fromEntries(SETTINGS.map((s) => [s.key, s.defaultOf(config)])) as unknown as SettingValues;
}

/** Why `value` is not a valid value of the setting, or null. */
export function valueProblem(definition: SettingDefinition, value: unknown): string | null {
  const schema = definition.schema;
  if (value === null) return 'is null; DELETE the setting to return it to its default';
  if (schema.data_type === 'integer') {
    if (typeof value !== 'number' || !Number.isInteger(value)) return `must be a whole number, got ${JSON.stringify(value)}`;
    if (value < schema.ge || value > schema.le) return `must be from ${schema.ge} to ${schema.le}, got ${value}`;
    return null;
  }
  if (schema.data_type === 'string') {
    if (typeof value !== 'string') return `must be a string, got ${JSON.stringify(value)}`;
    if (value.length > schema.max_length) return `must be at most ${schema.max_length} characters`;
    return schema.check(value);
  }
  if (typeof value !== 'string' || !schema.enum.includes(value)) return `must be one of ${schema.enum.join(', ')}, got ${JSON.stringify(value)}`;
  return null;
}

/** Checks each (key, value) pair, all before any is stored; one 400 lists every problem. */
export function checkValues(entries: readonly { key: string; value: unknown; location: string }[]): void {
  const errors: { location: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const definition = findSetting(e.key);
    if (!definition) errors.push({ location: `${e.location}.key`, message: `'${e.key}' is not a runtime setting; use one of ${SETTINGS.map((s) => s.key).join(', ')}` });
    else if (seen.has(e.key)) errors.push({ location: `${e.location}.key`, message: `'${e.key}' is given twice` });
    else {
      const problem = valueProblem(definition, e.value);
      if (problem) errors.push({ location: `${e.location}.value`, message: problem });
    }
    seen.add(e.key);
  }
  if (errors.length) throw new InvalidError(errors.length === 1 ? `invalid setting: ${errors[0]!.message}` : `${errors.length} invalid settings; nothing was changed`, { errors });
}
