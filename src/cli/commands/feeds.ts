/** `vigil feeds list|sync`. */
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { CliError, EXIT } from '../exit-codes.js';
import { nonNegativeInteger } from '../options.js';
import { fieldsView, type Column } from '../output.js';
import type { Session } from '../session.js';

type Feed = components['schemas']['FeedMetadata'];

const FEED_COLUMNS: Column<Feed>[] = [
  { header: 'feed', value: (f) => f.name },
  { header: 'enabled', value: (f) => f.enabled },
  { header: 'groups', value: (f) => f.groups.length },
  { header: 'records', value: (f) => f.groups.reduce((n, g) => n + g.record_count, 0) },
  { header: 'last sync', value: (f) => f.last_full_sync },
];

/** One feed's sync progress as a progress line shows it: `osv-debian: importing, 12 000 records`. */
export function syncProgressText(feed: string, p: components['schemas']['FeedSyncProgress']): string {
  return `${feed}: ${p.stage}${p.records !== undefined ? `, ${p.records.toLocaleString('en-US')} records` : ''}`;
}

/** The server's limit for one waiting request (timeout_seconds); longer waits ask again. */
const MAX_WAIT_SECONDS = 3600;

/** The action of `feeds list`, which `system feeds` shares. */
export function listFeeds(session: Session) {
  return async (_opts: unknown, cmd: Command): Promise<void> => {
    const { client, call } = await session.api(cmd);
    const answer = await call(client.GET('/system/feeds'));
    session.print(cmd, { data: answer, rows: answer, columns: FEED_COLUMNS });
  };
}

export function registerFeeds(program: Command, session: Session): void {
  const feeds = program.command('feeds').description('vulnerability data feeds');

  feeds
    .command('list')
    .description('the feeds, their groups and last sync')
    .action(listFeeds(session));

  feeds
    .command('sync')
    .description('sync the feeds now')
    .option('--wait', 'wait until the sync finished')
    .option('--timeout <seconds>', `with --wait, give up after this long (exit code 3; 1 to ${MAX_WAIT_SECONDS})`, nonNegativeInteger, 600)
    .option('--force', 'download even what did not change')
    .action(async (opts: { wait?: boolean; timeout: number; force?: boolean }, cmd: Command) => {
      if (opts.wait && (opts.timeout < 1 || opts.timeout > MAX_WAIT_SECONDS)) throw new CliError(`error: --timeout must be 1 to ${MAX_WAIT_SECONDS} seconds for feeds sync`);
      const { client, call } = await session.api(cmd);
      const progress = opts.wait ? session.progress() : undefined;
      progress?.update('syncing feeds');
      // The server holds the request until the sync ends or the timeout passes, answering the job either way.
      const request = call(
        client.POST('/system/feeds', { params: { query: { force_sync: opts.force ?? false, ...(opts.wait ? { wait: true, timeout_seconds: opts.timeout } : {}) } } }),
      );
      if (progress) {
        // Meanwhile the feed listing says which feed is at which stage (sync_progress), shown as it changes.
        let settled = false;
        const stop = new AbortController();
        void request.finally(() => {
          settled = true;
          stop.abort();
        }).catch(() => undefined);
        while (!settled) {
          await session.sleep(session.pollIntervalMs, stop.signal).catch(() => undefined);
          if (settled) break;
          const listing = await client.GET('/system/feeds').catch(() => undefined);
          const syncing = listing?.data?.find((f) => f.sync_progress);
          if (syncing?.sync_progress) progress.update(`syncing feeds: ${syncProgressText(syncing.name, syncing.sync_progress)}`);
        }
      }
      const answer = await request;
      progress?.done(`feed sync job ${answer.job_id}: ${answer.status}`);
      const rows: [string, unknown][] = [
        ['job', answer.job_id],
        ['status', answer.status],
        ...(answer.feeds ?? []).map((f): [string, unknown] => [`feed ${f.feed}`, f.error ? `${f.status}: ${f.error}` : f.status]),
        ...(answer.rematch ? [['images changed', answer.rematch.changed_images] as [string, unknown]] : []),
      ];
      session.print(cmd, fieldsView(answer, rows));
      if (!opts.wait) return;
      if (answer.status === 'queued' || answer.status === 'running') {
        session.note(`error: the feed sync did not finish within ${opts.timeout}s`);
        session.fail(EXIT.timeout);
      } else if (answer.status === 'failed') {
        session.note('error: the feed sync failed');
        session.fail(EXIT.error);
      }
    });
}
