/**
 * Which encryption key a node uses, and a check that every node sharing the database uses the same one.
 *
 * A key generated into one node's data dir cannot open what another node sealed, so on Postgres (the only
 * database several nodes share) start-up refuses to generate one: VIGIL_ENCRYPTION_KEY must be set, unless this
 * node already has a key file from an earlier start. The key itself is never stored in the database (a key next
 * to the data it protects protects nothing); only a check value derived from it is, in `settings`, so a node
 * with a different key (a typo, a restored backup without its key) refuses to start instead of failing later on
 * each secret it cannot open.
 */
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { databaseKind, type Db } from '../db/index.js';
import { keyFilePath, SecretBox } from '../util/secret-box.js';

const CHECK_SETTING = 'encryption_key_check';

export async function openSecretBox(db: Db, config: Pick<Config, 'encryptionKey' | 'dataDir'>): Promise<SecretBox> {
  if (!config.encryptionKey && databaseKind(db) === 'postgres' && !existsSync(keyFilePath(config.dataDir)))
    throw new ConfigError(
      'VIGIL_ENCRYPTION_KEY',
      'is required with Postgres (VIGIL_DATABASE_URL): every node sharing the database must seal and open secrets with the ' +
        'same key, so set VIGIL_ENCRYPTION_KEY (16+ characters, kept in your secret store) to the same value on every node',
    );
  const box = SecretBox.fromConfig(config.encryptionKey, config.dataDir);
  const check = box.deriveKey('encryption-key-check').toString('hex');
  // Two nodes starting at once: whichever insert wins, both compare with the same stored value.
  await db('settings').insert({ key: CHECK_SETTING, value: check }).onConflict('key').ignore();
  const stored = await db('settings').where({ key: CHECK_SETTING }).first('value');
  if (stored?.value !== check)
    throw new ConfigError(
      'VIGIL_ENCRYPTION_KEY',
      `this node's encryption key (${config.encryptionKey ? 'VIGIL_ENCRYPTION_KEY' : keyFilePath(config.dataDir)}) is not the key ` +
        'the secrets in this database were sealed with; give every node sharing the database the same VIGIL_ENCRYPTION_KEY',
    );
  return box;
}
