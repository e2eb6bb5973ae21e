/** `vigil account list|get|add` (administrators; others get the API's 403, exit code 2). */
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { oneOf } from '../options.js';
import { fieldsView, statusStyle, type Column } from '../output.js';
import type { Session } from '../session.js';

type Account = components['schemas']['Account'];

const STATES = ['enabled', 'disabled', 'deleting'] as const;

const ACCOUNT_COLUMNS: Column<Account>[] = [
  { header: 'name', value: (a) => a.name },
  { header: 'type', value: (a) => a.type },
  { header: 'state', value: (a) => a.state, style: (t) => statusStyle(t === 'enabled' ? 'ok' : 'warn') },
  { header: 'email', value: (a) => a.email },
  { header: 'created at', value: (a) => a.created_at },
];

const accountFields = (a: Account): [string, unknown][] => [
  ['name', a.name],
  ['type', a.type],
  ['state', a.state],
  ['email', a.email],
  ['created at', a.created_at],
  ['updated', a.last_updated],
];

export function registerAccount(program: Command, session: Session): void {
  const account = program.command('account').description('accounts (administrators)');

  account
    .command('list')
    .description('list the accounts')
    .option('--state <state>', STATES.join(', '), oneOf(STATES))
    .action(async (opts: { state?: (typeof STATES)[number] }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const list = await call(client.GET('/accounts', { params: { query: opts.state ? { state: opts.state } : {} } }));
      session.print(cmd, { data: list, rows: list, columns: ACCOUNT_COLUMNS });
    });

  account
    .command('get')
    .description('show an account (without a name: your own, or the one --account names)')
    .argument('[name]', 'account name')
    .action(async (name: string | undefined, _opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const found = name ? await call(client.GET('/accounts/{account_name}', { params: { path: { account_name: name } } })) : await call(client.GET('/account'));
      session.print(cmd, fieldsView(found, accountFields(found)));
    });

  account
    .command('add')
    .description('create an account (enabled; add users to it with vigil --account NAME user add)')
    .argument('<name>', 'account name')
    .option('--email <address>', 'contact address')
    .option('--type <type>', 'user or service', oneOf(['user', 'service'] as const), 'user')
    .action(async (name: string, opts: { email?: string; type: 'user' | 'service' }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const created = await call(client.POST('/accounts', { body: { name, type: opts.type, ...(opts.email ? { email: opts.email } : {}) } }));
      session.print(cmd, fieldsView(created, accountFields(created)));
    });
}
