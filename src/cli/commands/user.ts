/** `vigil user list|add|delete`: the users of an account (--account, else your own). */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { targetAccount } from '../accounts.js';
import { CliError } from '../exit-codes.js';
import { fieldsView, type Column } from '../output.js';
import type { Session } from '../session.js';

type User = components['schemas']['User'];

const USER_COLUMNS: Column<User>[] = [
  { header: 'username', value: (u) => u.username },
  { header: 'account', value: (u) => u.account_name },
  { header: 'type', value: (u) => u.type },
  { header: 'state', value: (u) => u.state },
  { header: 'created at', value: (u) => u.created_at },
];

/** A password from a file or stdin ("-"), never from the command line (where other users and shell history see it). */
function readPassword(file: string): string {
  const text = readFileSync(file === '-' ? 0 : file, 'utf8').replace(/\r?\n$/, '');
  if (!text) throw new CliError(`error: ${file === '-' ? 'stdin' : file} holds no password`);
  return text;
}

export function registerUser(program: Command, session: Session): void {
  const user = program.command('user').description('users of an account (--account, else your own; administrators)');

  user
    .command('list')
    .description('list the account\'s users (--all: every account\'s)')
    .option('--all', 'the users of every account')
    .action(async (opts: { all?: boolean }, cmd: Command) => {
      const api = await session.api(cmd);
      if (opts.all) {
        const all = await api.call(api.client.GET('/accounts/users'));
        return session.print(cmd, { data: all, rows: all.items, columns: USER_COLUMNS });
      }
      const account_name = await targetAccount(api);
      const list = await api.call(api.client.GET('/accounts/{account_name}/users', { params: { path: { account_name } } }));
      session.print(cmd, { data: list, rows: list, columns: USER_COLUMNS });
    });

  user
    .command('add')
    .description('create a native user (it holds no role until one is granted: vigil role grant)')
    .argument('<username>', 'user name, unique across the deployment')
    .requiredOption('--password-file <file>', 'a file holding the password ("-" for stdin)')
    .action(async (username: string, opts: { passwordFile: string }, cmd: Command) => {
      const password = readPassword(opts.passwordFile);
      const api = await session.api(cmd);
      const account_name = await targetAccount(api);
      const created = await api.call(api.client.POST('/accounts/{account_name}/users', { params: { path: { account_name } }, body: { username, password } }));
      session.print(cmd, fieldsView(created, [['username', created.username], ['account', created.account_name], ['type', created.type], ['state', created.state], ['created at', created.created_at]]));
    });

  user
    .command('delete')
    .description('delete a user with its credentials, API keys and role memberships')
    .argument('<username>', 'user name')
    .action(async (username: string, _opts: unknown, cmd: Command) => {
      const api = await session.api(cmd);
      const account_name = await targetAccount(api);
      await api.call(api.client.DELETE('/accounts/{account_name}/users/{username}', { params: { path: { account_name, username } } }));
      session.note(`deleted user ${username} of account ${account_name}`);
    });
}
