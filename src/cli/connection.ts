/**
 * Where the CLI connects and as whom. Each setting comes from the first of: a flag, an environment variable, the
 * selected context of the config file (`$XDG_CONFIG_HOME/vigil/config.yaml`, else `~/.config/vigil/config.yaml`).
 * The file holds secrets, so it is written with mode 0600 in a 0700 directory.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import yaml from 'js-yaml';
import { CliError } from './exit-codes.js';

export const DEFAULT_URL = 'http://127.0.0.1:8228';

/** Upstream's account-override header (Vigil also accepts x-service-account); acts on another account. */
export const ACCOUNT_HEADER = 'x-anchore-account';

/** The connection flags every command accepts (commander's camelCase names). */
export interface ConnectionFlags {
  url?: string;
  username?: string;
  password?: string;
  apiKey?: string;
  account?: string;
  context?: string;
}

/** One named context of the config file. */
export interface ContextEntry {
  url?: string;
  username?: string;
  password?: string;
  'api-key'?: string;
  token?: string;
  'refresh-token'?: string;
  /** When `token` expires (ISO 8601); past it, the refresh token gets a new pair first. */
  'token-expires-at'?: string;
  account?: string;
}

export interface CliConfig {
  'current-context'?: string;
  contexts?: Record<string, ContextEntry>;
}

export type Credentials =
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'api-key'; key: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'none' };

export interface Connection {
  url: string;
  credentials: Credentials;
  account?: string;
  /** The context the settings were completed from, if any. */
  context?: string;
}

export type Env = Record<string, string | undefined>;

export function configPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'vigil', 'config.yaml');
}

const CONTEXT_KEYS = new Set(['url', 'username', 'password', 'api-key', 'token', 'refresh-token', 'token-expires-at', 'account']);

export function readConfig(path: string): CliConfig {
  if (!existsSync(path)) return {};
  let doc: unknown;
  try {
    doc = yaml.load(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`error: ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === undefined || doc === null) return {};
  const problem = (what: string) => new CliError(`error: ${path}: ${what}`);
  if (typeof doc !== 'object' || Array.isArray(doc)) throw problem('expected a mapping with `contexts`');
  const config = doc as CliConfig;
  if (config['current-context'] !== undefined && typeof config['current-context'] !== 'string') throw problem('`current-context` must be a string');
  for (const [name, entry] of Object.entries(config.contexts ?? {})) {
    if (!entry || typeof entry !== 'object') throw problem(`context ${name} must be a mapping`);
    for (const [key, value] of Object.entries(entry)) {
      if (!CONTEXT_KEYS.has(key)) throw problem(`context ${name}: unknown key ${key} (known: ${[...CONTEXT_KEYS].join(', ')})`);
      if (typeof value !== 'string') throw problem(`context ${name}: ${key} must be a string`);
    }
  }
  return config;
}

export function writeConfig(path: string, config: CliConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, yaml.dump(config, { lineWidth: -1 }), { mode: 0o600 });
  // writeFileSync keeps the mode of an existing file; a secret file must not stay readable by others.
  chmodSync(path, 0o600);
}

/** The context to use: --context, VIGIL_CONTEXT, or the file's current-context. A named context must exist. */
export function selectContext(flags: ConnectionFlags, env: Env, config: CliConfig): { name?: string; entry: ContextEntry } {
  const explicit = flags.context ?? env.VIGIL_CONTEXT;
  const name = explicit ?? config['current-context'];
  if (!name) return { entry: {} };
  const entry = config.contexts?.[name];
  if (!entry) {
    const known = Object.keys(config.contexts ?? {});
    throw new CliError(`error: no context named ${name}${known.length ? ` (known: ${known.join(', ')})` : ''}`);
  }
  return { name, entry };
}

interface CredentialSource {
  apiKey?: string;
  username?: string;
  password?: string;
  token?: string;
}

/**
 * The credentials of the first source that names any (flags, then environment, then context), within it an API
 * key, else a token, else a username and password; a username or password missing there is completed from the
 * later sources, so `--username` can pair with VIGIL_PASSWORD.
 */
function pickCredentials(sources: CredentialSource[]): Credentials {
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i]!;
    if (s.apiKey) return { kind: 'api-key', key: s.apiKey };
    // A context's token is what login stored; its username is kept only to say who that is.
    if (s.token) return { kind: 'bearer', token: s.token };
    if (s.username || s.password) {
      const rest = sources.slice(i);
      const username = rest.find((r) => r.username)?.username;
      const password = rest.find((r) => r.password)?.password;
      if (!username) throw new CliError('error: a password was given without a username (--username or VIGIL_USERNAME)');
      if (!password) throw new CliError(`error: no password for ${username}: pass --password or set VIGIL_PASSWORD`);
      return { kind: 'basic', username, password };
    }
  }
  return { kind: 'none' };
}

export function resolveConnection(flags: ConnectionFlags, env: Env, config: CliConfig): Connection {
  const { name, entry } = selectContext(flags, env, config);
  const credentials = pickCredentials([
    { apiKey: flags.apiKey, username: flags.username, password: flags.password },
    { apiKey: env.VIGIL_API_KEY, username: env.VIGIL_USERNAME, password: env.VIGIL_PASSWORD },
    { apiKey: entry['api-key'], username: entry.username, password: entry.password, token: entry.token },
  ]);
  const url = flags.url ?? env.VIGIL_URL ?? entry.url ?? DEFAULT_URL;
  if (!/^https?:\/\/[^/]/.test(url)) throw new CliError(`error: the URL ${url} must start with http:// or https://`);
  const account = flags.account ?? env.VIGIL_ACCOUNT ?? entry.account;
  return { url, credentials, ...(account ? { account } : {}), ...(name ? { context: name } : {}) };
}

/** The request headers that carry a connection's credentials and account override. */
export function connectionHeaders(connection: Connection): Record<string, string> {
  const headers: Record<string, string> = {};
  const c = connection.credentials;
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  if (c.kind === 'basic') headers.authorization = basic(c.username, c.password);
  else if (c.kind === 'api-key') headers.authorization = basic('_api_key', c.key);
  else if (c.kind === 'bearer') headers.authorization = `Bearer ${c.token}`;
  if (connection.account) headers[ACCOUNT_HEADER] = connection.account;
  return headers;
}
