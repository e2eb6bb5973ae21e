/** `vigil events list [--follow]`: the account's events, newest first; --follow prints new ones as they come. */
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { CliError } from '../exit-codes.js';
import { nonNegativeInteger, oneOf } from '../options.js';
import type { Column, Style } from '../output.js';
import type { Api, Session } from '../session.js';

type EventRecord = components['schemas']['EventResponse'];
type Query = { event_type?: string; resource_type?: string; resource_id?: string; level?: 'INFO' | 'ERROR'; since?: string; before?: string };

const EVENT_COLUMNS: Column<EventRecord>[] = [
  { header: 'time', value: (e) => e.event.timestamp },
  { header: 'level', value: (e) => e.event.level, style: (t): Style | undefined => (t === 'ERROR' ? 'red' : undefined) },
  { header: 'type', value: (e) => e.event.type },
  { header: 'resource', value: (e) => `${e.event.resource.type} ${e.event.resource.id}` },
  { header: 'message', value: (e) => e.event.message },
];

/** The server's page size limit; --follow reads every page of what is new. */
const MAX_LIMIT = 1000;
/** Pages one --follow poll reads at most, so a flood of events cannot hold it in one poll forever. */
const MAX_PAGES_PER_POLL = 20;

interface ListOptions {
  type?: string;
  level?: 'INFO' | 'ERROR';
  resourceType?: string;
  resourceId?: string;
  since?: string;
  before?: string;
  limit: number;
  follow?: boolean;
  timeout?: number;
}

function isoTime(flag: string) {
  return (value: string): string => {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new CliError(`error: ${flag} ${value} is not a date or time (e.g. 2026-11-26T08:00:00Z)`);
    return new Date(ms).toISOString();
  };
}

function limit(value: string): number {
  const n = nonNegativeInteger(value);
  if (n < 1 || n > MAX_LIMIT) throw new CliError(`error: --limit must be 1 to ${MAX_LIMIT}`);
  return n;
}

/**
 * Polls for events at or after the newest one printed (the API's `since` is inclusive), printing each new one
 * once, oldest first, until interrupted or the timeout passes. Ids seen at the newest timestamp are remembered so
 * an event is never printed twice; older ids are forgotten, since `since` excludes them anyway.
 */
async function follow(session: Session, cmd: Command, { client, call }: Api, query: Query, first: EventRecord[], timeoutSeconds: number | undefined): Promise<void> {
  const print = session.stream(cmd, EVENT_COLUMNS);
  const { signal, release } = session.untilInterrupted();
  const deadline = timeoutSeconds === undefined ? Infinity : Date.now() + timeoutSeconds * 1000;
  let since = query.since;
  let seen = new Set<string>();
  const show = (events: EventRecord[]) => {
    const fresh = events.filter((e) => !seen.has(e.generated_uuid)).reverse();
    print(fresh.map((e) => ({ data: e, row: e })));
    for (const e of fresh) {
      const at = Date.parse(e.event.timestamp);
      if (since === undefined || at > Date.parse(since)) {
        since = e.event.timestamp;
        seen = new Set();
      }
      if (at === Date.parse(since)) seen.add(e.generated_uuid);
    }
  };
  try {
    show(first);
    while (!signal.aborted && Date.now() < deadline) {
      await session.sleep(Math.min(session.pollIntervalMs, Math.max(0, deadline - Date.now())), signal);
      if (signal.aborted) break;
      const found: EventRecord[] = [];
      for (let page = 1; page <= MAX_PAGES_PER_POLL; page++) {
        const answer = await call(client.GET('/events', { params: { query: { ...query, ...(since ? { since } : {}), page, limit: MAX_LIMIT } } }));
        found.push(...answer.results);
        if (!answer.next_page) break;
      }
      show(found);
    }
  } finally {
    release();
  }
}

export function registerEvents(program: Command, session: Session): void {
  const events = program.command('events').description('what happened in the account: analyses, tag and feed changes, failures');

  events
    .command('list')
    .description('list events, newest first; --follow prints new events as they happen (oldest first) until interrupted')
    .option('--type <type>', 'an event type, a prefix ending in "." (user.image.) or a pattern with *')
    .option('--level <level>', 'INFO or ERROR', oneOf(['INFO', 'ERROR'] as const))
    .option('--resource-type <type>', 'only events about this kind of resource (e.g. image_digest)')
    .option('--resource-id <id>', 'only events about this resource')
    .option('--since <time>', 'only events at or after this time', isoTime('--since'))
    .option('--before <time>', 'only events before this time', isoTime('--before'))
    .option('--limit <n>', `at most this many (1 to ${MAX_LIMIT}; with --follow, of the events before it starts)`, limit, 100)
    .option('--follow', 'keep polling and print each new event once, until interrupted (Ctrl-C) or --timeout')
    .option('--timeout <seconds>', 'with --follow, stop after this long (exit code 0)', nonNegativeInteger)
    .action(async (opts: ListOptions, cmd: Command) => {
      if (opts.timeout !== undefined && !opts.follow) throw new CliError('error: --timeout applies to --follow only');
      if (opts.follow && opts.before) throw new CliError('error: --before and --follow exclude each other');
      const api = await session.api(cmd);
      const query: Query = {
        ...(opts.type ? { event_type: opts.type } : {}),
        ...(opts.level ? { level: opts.level } : {}),
        ...(opts.resourceType ? { resource_type: opts.resourceType } : {}),
        ...(opts.resourceId ? { resource_id: opts.resourceId } : {}),
        ...(opts.since ? { since: opts.since } : {}),
        ...(opts.before ? { before: opts.before } : {}),
      };
      const answer = await api.call(api.client.GET('/events', { params: { query: { ...query, limit: opts.limit } } }));
      if (opts.follow) return follow(session, cmd, api, query, answer.results, opts.timeout);
      session.print(cmd, { data: answer, rows: answer.results, columns: EVENT_COLUMNS });
      if (answer.next_page) session.note(`more events than --limit ${opts.limit}: narrow with --since, --type or --level, or raise --limit`);
    });
}
