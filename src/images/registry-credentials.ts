/**
 * Registry credentials and TLS settings per account. Passwords are sealed with the SecretBox and never leave
 * this module except to the registry client.
 */
import { findAccount } from '../auth/accounts.js';
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { OutboundPolicy } from '../outbound/policy.js';
import type { Services } from '../service.js';
import type { SecretBox } from '../util/secret-box.js';
import { nowIso } from '../util/time.js';
import { registryApiHost } from './sources/references.js';
import { isLoopbackHost } from './sources/registry-http.js';
import type { RegistryClientOptions } from './sources/registry.js';

export interface RegistryRecord {
  account_name: string;
  registry: string;
  registry_name: string | null;
  registry_user: string | null;
  registry_pass_encrypted: string | null;
  registry_type: string;
  registry_verify: boolean;
  created_at: string;
  last_updated: string;
}

export interface RegistryInput {
  registry: string;
  registry_name?: string;
  registry_user?: string;
  registry_pass?: string;
  registry_type?: string;
  registry_verify?: boolean;
}

/** What the registry client needs to talk to one registry. */
export interface RegistryAccess {
  credentials?: { username: string; password: string };
  verifyTls: boolean;
  /** The configuration's `registry`, when one applies. */
  configured?: string;
}

function normalise(row: RegistryRecord): RegistryRecord {
  return { ...row, registry_verify: toBool(row.registry_verify) };
}

function notFound(registry: string): NotFoundError {
  return new NotFoundError(`no configuration for registry '${registry}'`, { registry });
}

export async function listRegistries(db: Db, accountName: string): Promise<RegistryRecord[]> {
  return (await db<RegistryRecord>('registries').where({ account_name: accountName }).orderBy('registry')).map(normalise);
}

export async function getRegistry(db: Db, accountName: string, registry: string): Promise<RegistryRecord> {
  const row = await db<RegistryRecord>('registries').where({ account_name: accountName, registry }).first();
  if (!row) throw notFound(registry);
  return normalise(row);
}

function fields(box: SecretBox, input: RegistryInput) {
  return {
    registry_name: input.registry_name ?? null,
    registry_user: input.registry_user ?? null,
    registry_pass_encrypted: input.registry_pass ? box.seal(input.registry_pass) : null,
    registry_type: input.registry_type ?? 'docker_v2',
    registry_verify: input.registry_verify ?? true,
  };
}

export async function createRegistry(db: Db, box: SecretBox, accountName: string, input: RegistryInput): Promise<RegistryRecord> {
  const now = nowIso();
  const row = { account_name: accountName, registry: input.registry, ...fields(box, input), created_at: now, last_updated: now };
  const inserted = await db('registries').insert(row).onConflict(['account_name', 'registry']).ignore().returning('registry');
  if (inserted.length === 0) throw new ConflictError(`registry '${input.registry}' is already configured`, { registry: input.registry });
  return row;
}

export async function updateRegistry(db: Db, box: SecretBox, accountName: string, registry: string, input: RegistryInput): Promise<RegistryRecord> {
  await getRegistry(db, accountName, registry);
  if (input.registry !== registry && (await db('registries').where({ account_name: accountName, registry: input.registry }).first('registry')))
    throw new ConflictError(`registry '${input.registry}' is already configured; delete it first or update it instead`, { registry: input.registry });
  const n = await db('registries')
    .where({ account_name: accountName, registry })
    .update({ ...fields(box, input), registry: input.registry, last_updated: nowIso() });
  if (n === 0) throw notFound(registry);
  return getRegistry(db, accountName, input.registry);
}

export async function deleteRegistry(db: Db, accountName: string, registry: string): Promise<void> {
  const n = await db('registries').where({ account_name: accountName, registry }).delete();
  if (n === 0) throw notFound(registry);
}

/**
 * The access settings for an image's registry and repository: the configuration whose `registry` is the
 * longest prefix of `host/repository` wins, so `host/team` credentials can differ from `host` ones.
 */
export async function accessFor(db: Db, box: SecretBox, accountName: string, host: string, repository: string): Promise<RegistryAccess> {
  const rows = await listRegistries(db, accountName);
  const target = `${host}/${repository}`;
  const match = rows
    .filter((r) => r.registry === host || target.startsWith(r.registry.endsWith('/') ? r.registry : `${r.registry}/`))
    .sort((a, b) => b.registry.length - a.registry.length)[0];
  if (!match) return { verifyTls: true };
  return {
    configured: match.registry,
    verifyTls: match.registry_verify,
    ...(match.registry_user ? { credentials: { username: match.registry_user, password: match.registry_pass_encrypted ? box.open(match.registry_pass_encrypted) : '' } } : {}),
  };
}

/**
 * The outbound policy for one stored registry configuration. A registry on this machine (`localhost:5000`,
 * `127.0.0.1:5000`, `[::1]:5000`) that an administrator configured in the admin account with
 * `registry_verify: false` may be reached on its own port, over plain HTTP, without VIGIL_REGISTRY_ALLOW: what
 * `docker run -p 5000:5000 registry` gives a first user. Other accounts cannot open a loopback port this way
 * (an ordinary user must not make Vigil probe the machine's ports); every other internal address still needs the
 * allow-lists.
 */
function registryPolicy(base: OutboundPolicy, accountType: string | undefined, registry: string | undefined, verifyTls: boolean): OutboundPolicy {
  if (registry === undefined || verifyTls || accountType !== 'admin') return base;
  let url: URL;
  try {
    url = new URL(`http://${registryApiHost(registry.split('/')[0]!)}`);
  } catch {
    return base;
  }
  if (!isLoopbackHost(url.hostname)) return base;
  // without a port the client tries HTTPS (443), then plain HTTP (80)
  return base.withLoopbackEndpoint(url.hostname, url.port === '' ? [443, 80] : [Number(url.port)]);
}

/** Everything but the platform that a registry client acting for `accountName` needs to pull from `registry`. */
export async function registryClientOptions(services: Services, accountName: string, registry: string, repository: string): Promise<RegistryClientOptions> {
  const access = await accessFor(services.db, services.secretBox, accountName, registry, repository);
  const account = access.configured === undefined || access.verifyTls ? undefined : await findAccount(services.db, accountName);
  return {
    policy: registryPolicy(services.outbound.registry, account?.type, access.configured, access.verifyTls),
    credentials: access.credentials,
    verifyTls: access.verifyTls,
    insecure: !access.verifyTls,
    timeoutMs: services.config.analysis.registryTimeoutMs,
  };
}
