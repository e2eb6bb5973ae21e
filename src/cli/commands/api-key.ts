/**
 * `vigil api-key list|add|revoke`: your own API keys, or with --user those of a user of the account (--account,
 * else your own; administrators).
 */
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { targetAccount } from '../accounts.js';
import { CliError } from '../exit-codes.js';
import { fieldsView, statusStyle, type Column } from '../output.js';
import type { Session } from '../session.js';

type ApiKey = components['schemas']['UserApiKey'];

const KEY_COLUMNS: Column<ApiKey>[] = [
  { header: 'name', value: (k) => k.name },
  { header: 'status', value: (k) => k.status, style: (t) => statusStyle(t === 'active' ? 'ok' : 'fail') },
  { header: 'expires at', value: (k) => k.expires_at },
  { header: 'created at', value: (k) => k.created_at },
  { header: 'description', value: (k) => k.description },
];

const keyFields = (k: ApiKey): [string, unknown][] => [
  ['name', k.name],
  ['status', k.status],
  ['expires at', k.expires_at],
  ['description', k.description],
  ...(k.value ? [['value', k.value] as [string, unknown]] : []),
];

function expiry(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new CliError(`error: --expires-at ${value} is not a date or time (e.g. 2027-06-30T00:00:00Z)`);
  return new Date(ms).toISOString();
}

const USER_OPTION = ['--user <username>', 'a user of the account (--account, else your own) instead of yourself'] as const;

export function registerApiKey(program: Command, session: Session): void {
  const apiKey = program.command('api-key').description('API keys (for CI: VIGIL_API_KEY)');

  apiKey
    .command('list')
    .description('list API keys (never their values)')
    .option(...USER_OPTION)
    .action(async (opts: { user?: string }, cmd: Command) => {
      const api = await session.api(cmd);
      const list = opts.user
        ? await api.call(api.client.GET('/accounts/{account_name}/users/{username}/api-keys', { params: { path: { account_name: await targetAccount(api), username: opts.user } } }))
        : await api.call(api.client.GET('/user/api-keys'));
      session.print(cmd, { data: list, rows: list.items, columns: KEY_COLUMNS });
    });

  apiKey
    .command('add')
    .description('create an API key; its value is shown this once')
    .argument('<name>', 'key name')
    .option('--description <text>', 'what the key is for')
    .option('--expires-at <time>', 'when it stops working (default: a year from now; at most 3 years)', expiry)
    .option(...USER_OPTION)
    .action(async (name: string, opts: { description?: string; expiresAt?: string; user?: string }, cmd: Command) => {
      const api = await session.api(cmd);
      const body = { name, ...(opts.description ? { description: opts.description } : {}), ...(opts.expiresAt ? { expires_at: opts.expiresAt } : {}) };
      const created = opts.user
        ? await api.call(api.client.POST('/accounts/{account_name}/users/{username}/api-keys', { params: { path: { account_name: await targetAccount(api), username: opts.user } }, body }))
        : await api.call(api.client.POST('/user/api-keys', { body }));
      session.note('the key\'s value is shown only now: store it (e.g. as the CI secret VIGIL_API_KEY)');
      session.print(cmd, fieldsView(created, keyFields(created)));
    });

  apiKey
    .command('revoke')
    .description('revoke an API key (it stops working at once and stays listed as revoked)')
    .argument('<name>', 'key name')
    .option(...USER_OPTION)
    .action(async (name: string, opts: { user?: string }, cmd: Command) => {
      const api = await session.api(cmd);
      const body = { status: 'revoked' as const };
      const revoked = opts.user
        ? await api.call(
            api.client.PATCH('/accounts/{account_name}/users/{username}/api-keys/{key_name}', { params: { path: { account_name: await targetAccount(api), username: opts.user, key_name: name } }, body }),
          )
        : await api.call(api.client.PATCH('/user/api-keys/{key_name}', { params: { path: { key_name: name } }, body }));
      session.print(cmd, fieldsView(revoked, keyFields(revoked)));
    });
}
