/**
 * Deployment history: each distinct (Vigil version, schema version) the database has been started with. A start
 * runs the migrations through `migrateAndRecord`, which records a change (a new version, or migrations applied)
 * as one row, and a failed migration as a `failure` row; a restart of the same release adds nothing.
 */
import { randomUUID } from 'node:crypto';
import { latestSchemaVersion, migrateToLatest, schemaVersion, type Db } from '../db/index.js';

export interface DeploymentRecord {
  deployment_id: string;
  upgrade_id?: string;
  from_system_version?: string;
  to_system_version: string;
  from_database_version?: string;
  to_database_version: string;
  outcome: 'success' | 'failure';
  db_upgrade_duration?: number;
  created_at: string;
}

interface DeploymentRow {
  deployment_id: string;
  upgrade_id: string | null;
  from_system_version: string | null;
  to_system_version: string;
  from_database_version: string | null;
  to_database_version: string;
  outcome: 'success' | 'failure';
  db_upgrade_duration: number | null;
  created_at: string;
}

export interface DeploymentStart {
  version: string;
  /** The schema version the start left (success) or tried to bring (failure) the database at. */
  databaseVersion: string;
  /** The schema version before this start's migrations; null for a new database. */
  previousDatabaseVersion: string | null;
  outcome: 'success' | 'failure';
  /** The migration batch this start ran, and how long it took; null when nothing was pending. */
  migration: { batch: number; seconds: number } | null;
  at?: Date;
}

/** Records a start when it changed the version or the schema (or failed); answers the row, or null when nothing changed. */
export async function recordDeployment(db: Db, start: DeploymentStart): Promise<DeploymentRecord | null> {
  const last = await db<DeploymentRow>('deployment_history').where({ outcome: 'success' }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'deployment_id', order: 'desc' }]).first();
  if (start.outcome === 'success' && last && last.to_system_version === start.version && last.to_database_version === start.databaseVersion) return null;
  const fromSystem = last?.to_system_version ?? null;
  const fromDatabase = last?.to_database_version ?? start.previousDatabaseVersion;
  const row: DeploymentRow = {
    deployment_id: randomUUID(),
    upgrade_id: start.migration ? String(start.migration.batch) : null,
    from_system_version: fromSystem,
    to_system_version: start.version,
    from_database_version: fromDatabase,
    to_database_version: start.databaseVersion,
    outcome: start.outcome,
    db_upgrade_duration: start.migration ? start.migration.seconds : null,
    created_at: (start.at ?? new Date()).toISOString(),
  };
  // Nodes starting together compute the same transition: the first insert wins, the others change nothing.
  const transition = `${fromSystem ?? ''}|${fromDatabase ?? ''}>${start.version}|${start.databaseVersion}|${start.outcome}`;
  const inserted = await db('deployment_history').insert({ ...row, transition }).onConflict('transition').ignore().returning('deployment_id');
  return inserted.length ? shape(row) : null;
}

function shape(r: DeploymentRow): DeploymentRecord {
  return {
    deployment_id: r.deployment_id,
    ...(r.upgrade_id !== null ? { upgrade_id: r.upgrade_id } : {}),
    ...(r.from_system_version !== null ? { from_system_version: r.from_system_version } : {}),
    to_system_version: r.to_system_version,
    ...(r.from_database_version !== null ? { from_database_version: r.from_database_version } : {}),
    to_database_version: r.to_database_version,
    outcome: r.outcome,
    ...(r.db_upgrade_duration !== null ? { db_upgrade_duration: Number(r.db_upgrade_duration) } : {}),
    created_at: r.created_at,
  };
}

/** Every recorded start, oldest first. */
export async function listDeployments(db: Db): Promise<DeploymentRecord[]> {
  const rows = await db<DeploymentRow>('deployment_history')
    .select('deployment_id', 'upgrade_id', 'from_system_version', 'to_system_version', 'from_database_version', 'to_database_version', 'outcome', 'db_upgrade_duration', 'created_at')
    .orderBy([{ column: 'created_at' }, { column: 'deployment_id' }]);
  return rows.map(shape);
}

async function currentSchemaVersion(db: Db): Promise<string | null> {
  return (await db.schema.hasTable('knex_migrations')) ? schemaVersion(db) : null;
}

/** Brings the schema up to date and records the start in the deployment history (a failure too, when it can). */
export async function migrateAndRecord(db: Db, version: string): Promise<void> {
  const previous = await currentSchemaVersion(db);
  const began = performance.now();
  let migrated: { batch: number; applied: string[] };
  try {
    migrated = await migrateToLatest(db);
  } catch (err) {
    // Recorded only when the history table exists already (a failure in an earlier release's migrations is not).
    if (await db.schema.hasTable('deployment_history').catch(() => false))
      await recordDeployment(db, { version, databaseVersion: latestSchemaVersion(), previousDatabaseVersion: previous, outcome: 'failure', migration: null }).catch(() => null);
    throw err;
  }
  const seconds = Math.round((performance.now() - began) / 10) / 100;
  await recordDeployment(db, {
    version,
    databaseVersion: await schemaVersion(db),
    previousDatabaseVersion: previous === 'none' ? null : previous,
    outcome: 'success',
    migration: migrated.applied.length ? { batch: migrated.batch, seconds } : null,
  });
}
