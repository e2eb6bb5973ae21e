/**
 * The service registry: which nodes run which services, and whether they are alive. A Vigil node is one process
 * that plays several of the roles upstream splits into services (API, catalog, queue, analyzer, policy engine,
 * notifications, reports). At start-up it registers one row per role it runs in `system_services`, refreshes
 * them every heartbeat, and marks them stopped when it shuts down; nodes sharing a database see each other.
 * A registration is live while it is not stopped and its heartbeat is younger than three intervals; one whose
 * heartbeat is a day old ages out (removed). Each row also records the node's Vigil roles (VIGIL_ROLES).
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { toBool, type Db } from '../db/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { isNodeRole, type NodeRole } from './node-roles.js';

/** The roles, named as upstream's services, with what a Vigil node does in each. */
export const SERVICE_ROLES = {
  apiext: 'the REST API under /v2',
  catalog: 'images, tags, subscriptions and registry credentials; polls watched tags and repositories; expires runtime inventory',
  simplequeue: 'the job queue (kept in the database) this node claims analysis and background work from',
  analyzer: 'image analysis and SBOM import jobs',
  policy_engine: 'vulnerability feed syncs, vulnerability matching and policy evaluation',
  notifications: 'delivery of queued notifications to webhooks, Slack, Teams and e-mail',
  reports: 'the GraphQL reporting endpoints under /v2/reports',
  reports_worker: 'the reporting read model refresh, metrics collection and scheduled queries',
} as const;

export type ServiceName = keyof typeof SERVICE_ROLES;

export function isServiceName(name: string): name is ServiceName {
  return Object.hasOwn(SERVICE_ROLES, name);
}

/** Which Vigil process roles (VIGIL_ROLES) make a node run each upstream service: any one of them does. */
const SERVICE_NODE_ROLES: Record<ServiceName, readonly NodeRole[]> = {
  apiext: ['api'],
  catalog: ['api', 'scheduler'],
  simplequeue: ['analyzer', 'feeds', 'reports'],
  analyzer: ['analyzer'],
  policy_engine: ['feeds'],
  notifications: ['notifications'],
  reports: ['api'],
  reports_worker: ['reports'],
};

/** The upstream services a node with this configuration runs. */
export function nodeServiceNames(config: Pick<Config, 'notifications' | 'roles'>): ServiceName[] {
  return (Object.keys(SERVICE_ROLES) as ServiceName[]).filter(
    (name) => SERVICE_NODE_ROLES[name].some((role) => config.roles.includes(role)) && (name !== 'notifications' || config.notifications.dispatcher),
  );
}

/** A registration is stale once this many heartbeats were missed. */
export const MISSED_BEATS = 3;

/** A registration whose last heartbeat is older than this is removed by the next heartbeat of any live node. */
export const AGE_OUT_MS = 24 * 3600_000;

/** Removes the registrations of nodes gone for longer than AGE_OUT_MS (stopped or stale), so the list does not grow. */
export async function removeAgedOut(db: Db, now: Date = new Date()): Promise<number> {
  return db('system_services').where('heartbeat_at', '<', new Date(now.getTime() - AGE_OUT_MS).toISOString()).delete();
}

interface ServiceRow {
  service_name: string;
  host_id: string;
  base_url: string;
  version: string;
  db_version: string;
  instance_id: string;
  started_at: string;
  heartbeat_at: string;
  heartbeat_seconds: number;
  stopped_at: string | null;
  busy: boolean | number;
  logging_level: string;
  node_roles: string;
}

/** A node's identity and what it registers with. */
export interface NodeRegistration {
  hostId: string;
  /** Unique per process: a later process on the same host replaces the registrations of an earlier one. */
  instanceId: string;
  baseUrl: string;
  version: string;
  dbVersion: string;
  startedAt: string;
  heartbeatSeconds: number;
  loggingLevel: string;
  /** The node's VIGIL_ROLES. */
  roles: readonly NodeRole[];
}

/** The upstream StatusResponse of one registration. */
export interface ServiceStatus {
  available: boolean;
  busy: boolean;
  up: boolean;
  message: string;
  version: string;
  db_version: string;
  detail: Record<string, unknown>;
}

/** The upstream Service shape. */
export interface ServiceState {
  host_id: string;
  service_name: string;
  base_url: string;
  status_message: string;
  service_detail: ServiceStatus;
  status: boolean;
  version: string;
}

function isLive(row: Pick<ServiceRow, 'stopped_at' | 'heartbeat_at' | 'heartbeat_seconds'>, now: Date): boolean {
  return row.stopped_at === null && Date.parse(row.heartbeat_at) + MISSED_BEATS * row.heartbeat_seconds * 1000 > now.getTime();
}

function stateOf(row: ServiceRow, now: Date): ServiceState {
  const live = isLive(row, now);
  const message =
    row.stopped_at !== null
      ? `stopped at ${row.stopped_at}`
      : live
        ? `running since ${row.started_at}`
        : `no heartbeat since ${row.heartbeat_at} (expected every ${row.heartbeat_seconds} s)`;
  return {
    host_id: row.host_id,
    service_name: row.service_name,
    base_url: row.base_url,
    status_message: message,
    service_detail: {
      available: live,
      busy: live && toBool(row.busy),
      up: live,
      message,
      version: row.version,
      db_version: row.db_version,
      detail: {
        role: isServiceName(row.service_name) ? SERVICE_ROLES[row.service_name] : null,
        started_at: row.started_at,
        last_heartbeat_at: row.heartbeat_at,
        heartbeat_interval_seconds: row.heartbeat_seconds,
        ...(row.stopped_at !== null ? { stopped_at: row.stopped_at } : {}),
        logging_level: row.logging_level,
        // Vigil's own process roles of the node (VIGIL_ROLES); the upstream service name is one of several it runs.
        vigil_roles: row.node_roles.split(',').filter(isNodeRole),
      },
    },
    status: live,
    version: row.version,
  };
}

/** Writes (or takes over) the registrations of a node, one per role, as of `at`. */
export async function registerServices(db: Db, node: NodeRegistration, names: readonly ServiceName[], at: Date = new Date()): Promise<void> {
  const now = at.toISOString();
  await db.transaction(async (trx) => {
    // Roles an earlier process on this host ran and this one does not: that process is gone, so are they.
    await trx('system_services').where({ host_id: node.hostId }).whereNotIn('service_name', names).delete();
    if (!names.length) return;
    await trx('system_services')
      .insert(
        names.map((service_name) => ({
          service_name,
          host_id: node.hostId,
          base_url: node.baseUrl,
          version: node.version,
          db_version: node.dbVersion,
          instance_id: node.instanceId,
          started_at: node.startedAt,
          heartbeat_at: now,
          heartbeat_seconds: node.heartbeatSeconds,
          stopped_at: null,
          busy: false,
          logging_level: node.loggingLevel,
          node_roles: node.roles.join(','),
        })),
      )
      .onConflict(['service_name', 'host_id'])
      .merge();
  });
}

export interface ServiceFilter {
  serviceName?: string;
  hostId?: string;
}

/** Registrations with their status as of `now`, by service name then host. */
export async function listServices(db: Db, filter: ServiceFilter = {}, now: Date = new Date()): Promise<ServiceState[]> {
  const q = db<ServiceRow>('system_services');
  if (filter.serviceName !== undefined) q.where({ service_name: filter.serviceName });
  if (filter.hostId !== undefined) q.where({ host_id: filter.hostId });
  const rows = await q.orderBy([{ column: 'service_name' }, { column: 'host_id' }]);
  return rows.map((r) => stateOf(r, now));
}

/** Like listServices, but no registration is a NotFoundError naming what was asked for. */
export async function getServices(db: Db, filter: ServiceFilter, now: Date = new Date()): Promise<ServiceState[]> {
  const found = await listServices(db, filter, now);
  if (!found.length) {
    const what = filter.hostId !== undefined ? `service '${filter.serviceName}' on host '${filter.hostId}'` : `service '${filter.serviceName}'`;
    throw new NotFoundError(`no ${what} is registered`, { service_name: filter.serviceName, ...(filter.hostId !== undefined ? { host_id: filter.hostId } : {}) });
  }
  return found;
}

/**
 * Removes the registration of a node that is gone (stopped, or its heartbeat stale). A live one is refused: its
 * next heartbeat would write it again, and removing it would hide a running node.
 */
export async function deleteService(db: Db, serviceName: string, hostId: string, now: Date = new Date()): Promise<void> {
  await db.transaction(async (trx) => {
    const row = await trx<ServiceRow>('system_services').where({ service_name: serviceName, host_id: hostId }).first();
    if (!row) throw new NotFoundError(`no service '${serviceName}' on host '${hostId}' is registered`, { service_name: serviceName, host_id: hostId });
    if (isLive(row, now))
      throw new ConflictError(
        `service '${serviceName}' on host '${hostId}' is running (last heartbeat ${row.heartbeat_at}); stop the node, or wait until its heartbeat is ${MISSED_BEATS * row.heartbeat_seconds} s old, before removing it`,
        { service_name: serviceName, host_id: hostId, last_heartbeat_at: row.heartbeat_at },
      );
    await trx('system_services').where({ service_name: serviceName, host_id: hostId }).delete();
  });
}

export interface RegistryProbes {
  /** Whether a role is at capacity now (only the analyzer can be). */
  busy(name: ServiceName): boolean;
  /** The process's current logging level. */
  loggingLevel(): string;
  /** Node-local settings re-read at each heartbeat before it is written (the log_level runtime setting). */
  beforeBeat?(): Promise<void>;
}

/**
 * This node's registrations: written at start, refreshed every heartbeat (with the busy flag and logging level
 * of the moment), marked stopped at shutdown. Emits `heartbeat` after each refresh.
 */
export class ServiceRegistry extends EventEmitter {
  private timer: NodeJS.Timeout | null = null;
  private node: NodeRegistration | null = null;
  private beating: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    readonly names: readonly ServiceName[],
    private readonly probes: RegistryProbes,
  ) {
    super();
  }

  /** Registers this node and starts the heartbeat. */
  async start(node: Omit<NodeRegistration, 'loggingLevel'>): Promise<void> {
    this.node = { ...node, loggingLevel: this.probes.loggingLevel() };
    await registerServices(this.db, this.node, this.names);
    this.timer = setInterval(() => void this.beat().catch((err) => this.log.warn({ err }, 'service heartbeat failed')), node.heartbeatSeconds * 1000);
    this.timer.unref();
  }

  /** Refreshes this node's registrations now (the timer calls it; so does a change of the logging level). */
  beat(): Promise<void> {
    this.beating ??= this.refresh().finally(() => (this.beating = null));
    return this.beating;
  }

  private async refresh(): Promise<void> {
    const node = this.node;
    if (!node) return;
    await this.probes.beforeBeat?.().catch((err) => this.log.warn({ err }, 'could not apply the runtime settings at the heartbeat'));
    node.loggingLevel = this.probes.loggingLevel();
    const now = new Date().toISOString();
    let updated = 0;
    for (const name of this.names)
      updated += await this.db('system_services')
        .where({ service_name: name, host_id: node.hostId, instance_id: node.instanceId })
        .update({ heartbeat_at: now, busy: this.probes.busy(name), logging_level: node.loggingLevel, stopped_at: null });
    if (updated < this.names.length) {
      // Deleted while this node looked stale, or taken over by another process using the same host id.
      const others = await this.db('system_services').where({ host_id: node.hostId }).whereNot({ instance_id: node.instanceId }).first();
      if (others) this.log.warn({ host_id: node.hostId }, 'another process registers with this host id; give each node its own VIGIL_HOST_ID');
      await registerServices(this.db, node, this.names);
    }
    const removed = await removeAgedOut(this.db);
    if (removed) this.log.info({ removed }, 'removed service registrations without a heartbeat for a day');
    this.emit('heartbeat', now);
  }

  /** Stops the heartbeat and marks the registrations stopped. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating?.catch(() => {});
    const node = this.node;
    this.node = null;
    if (!node) return;
    await this.db('system_services').where({ host_id: node.hostId, instance_id: node.instanceId }).update({ stopped_at: new Date().toISOString() });
  }
}
