/** `vigil version` and `vigil system status|services|feeds`. */
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { fieldsView, type Column } from '../output.js';
import { listFeeds } from './feeds.js';
import type { Session } from '../session.js';

type Service = components['schemas']['Service'];

const SERVICE_COLUMNS: Column<Service>[] = [
  { header: 'service', value: (s) => s.service_name },
  { header: 'host', value: (s) => s.host_id },
  { header: 'status', value: (s) => (s.status ? 'up' : 'down'), style: (t) => (t === 'up' ? 'green' : 'red') },
  { header: 'version', value: (s) => s.version },
  { header: 'url', value: (s) => s.base_url },
  { header: 'message', value: (s) => s.status_message },
];

export function registerSystem(program: Command, session: Session): void {
  program
    .command('version')
    .description('print the CLI\'s version and the server\'s')
    .action(async (_opts: unknown, cmd: Command) => {
      session.note(`vigil-cli ${session.version}`);
      const { client, call } = await session.api(cmd);
      const server = await call(client.GET('/version'));
      session.print(cmd, fieldsView(server, [['client', session.version], ['service', server.service.version], ['api', server.api.version], ['db schema', server.db.schema_version]]));
    });

  const system = program.command('system').description('the service itself');
  system
    .command('status')
    .description('the services of this deployment and whether they are up')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const answer = await call(client.GET('/system'));
      session.print(cmd, { data: answer, rows: answer.service_states, columns: SERVICE_COLUMNS });
    });

  system
    .command('services')
    .description('every registered service on every node sharing the database, and whether its heartbeat is fresh')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const answer = await call(client.GET('/system/services'));
      session.print(cmd, { data: answer, rows: answer, columns: SERVICE_COLUMNS });
    });

  system.command('feeds').description('the feeds, their groups and last sync (as vigil feeds list)').action(listFeeds(session));
}
