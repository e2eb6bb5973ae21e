/**
 * `vigil role list|members|grant|revoke`: the roles, and who holds one in an account (the request's target
 * account: --account, else your own).
 */
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { fieldsView, type Column } from '../output.js';
import type { Session } from '../session.js';

type Role = components['schemas']['RbacManagerRoleSummary'];
type Member = components['schemas']['RbacManagerRoleMember'];

const MEMBER_COLUMNS: Column<Member>[] = [
  { header: 'username', value: (m) => m.username },
  { header: 'account', value: (m) => m.domain_name },
  { header: 'since', value: (m) => m.created_at },
];

export function registerRole(program: Command, session: Session): void {
  const role = program.command('role').description('roles and their members in an account (--account, else your own)');

  role
    .command('list')
    .description('list the roles')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const roles = await call(client.GET('/rbac-manager/roles'));
      const columns: Column<Role>[] = [
        { header: 'role', value: (r) => r.name },
        { header: 'description', value: (r) => r.description },
      ];
      session.print(cmd, { data: roles, rows: roles, columns });
    });

  role
    .command('members')
    .description('list who holds a role in the account')
    .argument('<role>', 'role name, e.g. image-analyzer')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const members = await call(client.GET('/rbac-manager/roles/{role_name}/members', { params: { path: { role_name: name } } }));
      session.print(cmd, { data: members, rows: members, columns: MEMBER_COLUMNS });
    });

  role
    .command('grant')
    .description('grant a role in the account to a user (who may belong to another account)')
    .argument('<role>', 'role name')
    .argument('<username>', 'user name')
    .action(async (name: string, username: string, _opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const member = await call(client.POST('/rbac-manager/roles/{role_name}/members', { params: { path: { role_name: name } }, body: { username } }));
      session.print(cmd, fieldsView(member, [['role', name], ['username', member.username], ['account', member.domain_name], ['since', member.created_at]]));
    });

  role
    .command('revoke')
    .description('remove a user\'s role in the account')
    .argument('<role>', 'role name')
    .argument('<username>', 'user name')
    .action(async (name: string, username: string, _opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      await call(client.DELETE('/rbac-manager/roles/{role_name}/members', { params: { path: { role_name: name }, query: { username } } }));
      session.note(`removed role ${name} of ${username}`);
    });
}
