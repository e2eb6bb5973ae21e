/**
 * The runtime settings in force: the stored value of each key, else the node's default (its environment). Read from
 * the database on each use (one small query), not cached, so a change made through any node counts on every node
 * from its next use; writes are transactions, so a PATCH stores all its values or none.
 */
import type { Db } from '../db/index.js';
import { checkValues, findSetting, SETTINGS, valueProblem, type SettingDefinition, type SettingKey, type SettingValues } from './catalog.js';
import { storedSettings, storeSettings, unstoreSetting, type StoredSetting } from './store.js';
import { NotFoundError } from '../errors.js';

export interface SettingState {
  definition: SettingDefinition;
  value: unknown;
  defaultValue: unknown;
  /** The stored row, when the value was set through the API. */
  stored: StoredSetting | null;
}

export class RuntimeSettings {
  constructor(
    private readonly db: Db,
    private readonly defaults: SettingValues,
  ) {}

  /** Every setting with its value in force, in catalog order. */
  async states(): Promise<SettingState[]> {
    const stored = new Map((await storedSettings(this.db)).map((r) => [r.key, r]));
    return SETTINGS.map((definition) => {
      const row = stored.get(definition.key) ?? null;
      const defaultValue = this.defaults[definition.key];
      return { definition, value: row ? (JSON.parse(row.value) as unknown) : defaultValue, defaultValue, stored: row };
    });
  }

  async state(key: string): Promise<SettingState> {
    const definition = known(key);
    return (await this.states()).find((s) => s.definition === definition)!;
  }

  /** The value in force of one setting. A stored value that no longer fits (bounds changed) gives way to the default. */
  async get<K extends SettingKey>(key: K): Promise<SettingValues[K]> {
    const [row] = await this.db<StoredSetting>('system_configurations').where({ key }).select('value');
    if (!row) return this.defaults[key];
    const value = JSON.parse(row.value) as SettingValues[K];
    return valueProblem(known(key), value) === null ? value : this.defaults[key];
  }

  /** Stores every value or none (each checked first); answers the keys changed. */
  async set(entries: readonly { key: string; value: unknown }[], updatedBy: string, location: (index: number) => string): Promise<string[]> {
    checkValues(entries.map((e, i) => ({ ...e, location: location(i) })));
    await this.db.transaction((trx) => storeSettings(trx, entries, updatedBy));
    return entries.map((e) => e.key);
  }

  /** Forgets the stored value of a known key (none stored is fine): the default applies again. */
  async unset(key: string): Promise<void> {
    known(key);
    await unstoreSetting(this.db, key);
  }
}

function known(key: string): SettingDefinition {
  const definition = findSetting(key);
  if (!definition) throw new NotFoundError(`'${key}' is not a runtime setting; use one of ${SETTINGS.map((s) => s.key).join(', ')}`, { config_key: key });
  return definition;
}
