/** `vigil subscription list|activate|deactivate` and `vigil repo add|list` (a watched repository is a repo_update subscription). */
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { CliError } from '../exit-codes.js';
import { oneOf } from '../options.js';
import { statusStyle, type Column } from '../output.js';
import type { Api, Session } from '../session.js';

type Subscription = components['schemas']['Subscription'];
type SubscriptionType = components['schemas']['SubscriptionRequest']['subscription_type'];

/** Upstream's subscription types: four per tag, repo_update for a watched repository, and alerts (a tag or a repository). */
const SUBSCRIPTION_TYPES: readonly SubscriptionType[] = ['tag_update', 'vuln_update', 'policy_eval', 'analysis_update', 'repo_update', 'alerts'];

const SUBSCRIPTION_COLUMNS: Column<Subscription>[] = [
  { header: 'key', value: (s) => s.subscription_key },
  { header: 'type', value: (s) => s.subscription_type },
  { header: 'active', value: (s) => (s.active ? 'active' : 'inactive'), style: statusStyle },
  { header: 'value', value: (s) => s.subscription_value },
  { header: 'id', value: (s) => s.subscription_id },
];

/** The subscription of this type and key, if the account has one (the server normalises the key as on creation). */
async function findSubscription({ client, call }: Pick<Api, 'client' | 'call'>, type: SubscriptionType, key: string): Promise<Subscription | undefined> {
  const found = await call(client.GET('/subscriptions', { params: { query: { subscription_type: type, subscription_key: key } } }));
  return found[0];
}

export function registerSubscription(program: Command, session: Session): void {
  const subscription = program.command('subscription').description('subscriptions of tags (and watched repositories) to kinds of change');

  subscription
    .command('list')
    .description('list the account\'s subscriptions')
    .option('--type <type>', `only this type (${SUBSCRIPTION_TYPES.join(', ')})`, oneOf(SUBSCRIPTION_TYPES))
    .option('--key <tag>', 'only this tag (or repository, with --type repo_update)')
    .action(async (opts: { type?: SubscriptionType; key?: string }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const query = { ...(opts.type ? { subscription_type: opts.type } : {}), ...(opts.key ? { subscription_key: opts.key } : {}) };
      const list = await call(client.GET('/subscriptions', { params: { query } }));
      session.print(cmd, { data: list, rows: list, columns: SUBSCRIPTION_COLUMNS });
    });

  // activate creates the subscription when the account has none of the type for the key; deactivate keeps it.
  for (const active of [true, false]) {
    subscription
      .command(active ? 'activate' : 'deactivate')
      .description(active ? 'activate a subscription, creating it if the account has none of this type for the key' : 'deactivate a subscription (it is kept, and can be activated again)')
      .argument('<type>', SUBSCRIPTION_TYPES.join(', '), oneOf(SUBSCRIPTION_TYPES))
      .argument('<key>', 'the tag (registry/repository:tag), or registry/repository for repo_update')
      .action(async (type: SubscriptionType, key: string, _opts: unknown, cmd: Command) => {
        const api = await session.api(cmd);
        const existing = await findSubscription(api, type, key);
        if (!existing && !active) throw new CliError(`error: the account has no ${type} subscription for ${key} (see: vigil subscription list)`);
        const answer = existing
          ? await api.call(api.client.PUT('/subscriptions/{subscription_id}', { params: { path: { subscription_id: existing.subscription_id } }, body: { active } }))
          : await api.call(api.client.POST('/subscriptions', { body: { subscription_type: type, subscription_key: key } }));
        session.print(cmd, { data: answer, rows: answer, columns: SUBSCRIPTION_COLUMNS });
      });
  }

  const repo = program.command('repo').description('watched repositories: their tags are added for analysis, now and as new ones appear');

  repo
    .command('add')
    .description('watch a repository (registry/repository) and add its tags')
    .argument('<repository>', 'e.g. registry.example.com:5000/team/app')
    .option('--dry-run', 'only list the tags that would be added')
    .option('--no-auto-subscribe', 'do not subscribe the tags to tag_update (they are then not polled)')
    .option('--exclude-existing-tags', 'add only tags that appear from now on')
    .action(async (repository: string, opts: { dryRun?: boolean; autoSubscribe: boolean; excludeExistingTags?: boolean }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const query = { repository, auto_subscribe: opts.autoSubscribe, dry_run: opts.dryRun ?? false, exclude_existing_tags: opts.excludeExistingTags ?? false };
      const answer = await call(client.POST('/repositories', { params: { query } }));
      session.print(cmd, { data: answer, rows: answer, columns: SUBSCRIPTION_COLUMNS });
    });

  repo
    .command('list')
    .description('list the watched repositories (the repo_update subscriptions)')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const list = await call(client.GET('/subscriptions', { params: { query: { subscription_type: 'repo_update' } } }));
      session.print(cmd, { data: list, rows: list, columns: SUBSCRIPTION_COLUMNS });
    });
}
