/** `vigil policy ...`: list, get, add, activate, validate, dry-run. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import yaml from 'js-yaml';
import type { components } from '../../../generated/openapi-types.js';
import { CliError, EXIT } from '../exit-codes.js';
import { resolveImage } from '../images.js';
import { fieldsView, statusStyle, type Column } from '../output.js';
import type { Api, Session } from '../session.js';

type Policy = components['schemas']['Policy'];
type PolicyRecord = components['schemas']['PolicyRecord'];

/** A policy document from a JSON or YAML file: the policy itself, or a record holding it in `policy`. */
function readPolicy(file: string): Policy {
  let doc: unknown;
  try {
    doc = yaml.load(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    throw new CliError(`error: ${file} is not JSON or YAML: ${(err as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new CliError(`error: ${file} does not hold a policy document (an object)`);
  const record = doc as { policy?: unknown; rule_sets?: unknown };
  // The API validates the document; the CLI only unwraps a record such as `vigil policy get -o json` prints.
  return (record.rule_sets === undefined && record.policy && typeof record.policy === 'object' ? record.policy : doc) as Policy;
}

const RECORD_COLUMNS: Column<PolicyRecord>[] = [
  { header: 'id', value: (p) => p.policy_id },
  { header: 'name', value: (p) => p.name },
  { header: 'active', value: (p) => (p.active ? 'active' : ''), style: statusStyle },
  { header: 'updated', value: (p) => p.last_updated },
];

const recordFields = (p: PolicyRecord): [string, unknown][] => [
  ['id', p.policy_id],
  ['name', p.name],
  ['description', p.description],
  ['active', p.active],
  ['rule sets', p.policy?.rule_sets.map((r) => r.name)],
  ['mappings', p.policy?.mappings.length],
  ['updated', p.last_updated],
];

/** PUT with active=true; the body is the policy record the spec asks for, holding the (unchanged) document. */
function activate({ client, call }: Pick<Api, 'client' | 'call'>, id: string, document: Policy): Promise<PolicyRecord> {
  return call(client.PUT('/policies/{policy_id}', { params: { path: { policy_id: id }, query: { active: true } }, body: { policy: document } }));
}

export function registerPolicy(program: Command, session: Session): void {
  const policy = program.command('policy').description('policies and which one is active');

  policy
    .command('list')
    .description('list the account\'s policies')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const records = await call(client.GET('/policies'));
      session.print(cmd, { data: records, rows: records, columns: RECORD_COLUMNS });
    });

  policy
    .command('get')
    .description('show a policy (-o json prints the document to edit and add again)')
    .argument('<id>', 'policy id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const record = await call(client.GET('/policies/{policy_id}', { params: { path: { policy_id: id } } }));
      session.print(cmd, fieldsView(record, recordFields(record)));
    });

  policy
    .command('add')
    .description('upload a policy document (JSON or YAML); the API reports every problem at once')
    .argument('<file>', 'the policy ("-" for stdin)')
    .option('--activate', 'make it the active policy')
    .action(async (file: string, opts: { activate?: boolean }, cmd: Command) => {
      const document = readPolicy(file);
      const { client, call } = await session.api(cmd);
      const stored = await call(client.POST('/policies', { body: document }));
      const record = opts.activate ? await activate({ client, call }, stored.policy_id, document) : stored;
      session.print(cmd, fieldsView(record, recordFields(record)));
    });

  policy
    .command('activate')
    .description('make a stored policy the active one')
    .argument('<id>', 'policy id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const current = await call(client.GET('/policies/{policy_id}', { params: { path: { policy_id: id } } }));
      if (!current.policy) throw new CliError(`error: the API answered policy ${id} without its document`);
      const record = await activate({ client, call }, id, current.policy);
      session.print(cmd, fieldsView(record, recordFields(record)));
    });

  policy
    .command('validate')
    .description('check a policy document without storing it, and show which tags it would turn from pass to fail')
    .argument('<file>', 'the policy ("-" for stdin)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const document = readPolicy(file);
      const { client, call } = await session.api(cmd);
      // The dry run validates exactly as an upload does (every problem at once, exit code 2) and stores nothing.
      const answer = await call(client.POST('/policy-dry-run', { body: document }));
      session.note(`${file}: valid; against the account's current tags: ${answer.summary.pass_to_fail} pass→fail, ${answer.summary.fail_to_pass} fail→pass, ${answer.summary.unchanged} unchanged`);
      const columns: Column<(typeof answer.tags)[number]>[] = [
        { header: 'tag', value: (t) => t.tag },
        { header: 'active policy', value: (t) => t.current.status, style: statusStyle },
        { header: 'draft', value: (t) => t.draft.status, style: statusStyle },
        { header: 'change', value: (t) => (t.change === 'none' ? '' : t.change) },
      ];
      session.print(cmd, { data: answer, rows: answer.tags, columns });
    });

  policy
    .command('dry-run')
    .description('evaluate a draft policy for one image, without storing or activating it, beside the active policy\'s result')
    .argument('<file>', 'the draft policy ("-" for stdin)')
    .requiredOption('--image <ref>', 'the image (tag or digest); it must be analyzed and have a current tag')
    .option('--fail-based-on-results', 'exit 1 when the draft fails the image')
    .action(async (file: string, opts: { image: string; failBasedOnResults?: boolean }, cmd: Command) => {
      const document = readPolicy(file);
      const { client, call } = await session.api(cmd);
      const resolved = await resolveImage(client, call, opts.image);
      // The API evaluates the draft for every current tag of the account; this command keeps the image's tags.
      const answer = await call(client.POST('/policy-dry-run', { body: document }));
      const tags = answer.tags.filter((t) => t.image_digest === resolved.image.image_digest && (!resolved.tag || t.tag === resolved.tag));
      if (tags.length === 0) throw new CliError(`error: the dry run covers the current tags of analyzed images, and ${opts.image} is not one (see: vigil image get ${opts.image})`);
      for (const t of tags) session.note(`${t.tag}: active policy ${answer.active_policy_id} ${t.current.status}, draft ${answer.draft_policy_id} ${t.draft.status} (${t.draft.final_action}: ${t.draft.final_action_reason})`);
      type Reason = { tag: string } & (typeof tags)[number]['reasons'][number];
      const columns: Column<Reason>[] = [
        { header: 'tag', value: (r) => r.tag },
        { header: 'gate', value: (r) => r.gate },
        { header: 'trigger', value: (r) => r.trigger },
        { header: 'trigger id', value: (r) => r.trigger_id },
        { header: 'message', value: (r) => r.message },
      ];
      const reasons = tags.flatMap((t) => t.reasons.map((r) => ({ tag: t.tag, ...r })));
      session.print(cmd, { data: { ...answer, tags }, rows: reasons, columns });
      if (opts.failBasedOnResults && tags.some((t) => t.draft.status === 'fail')) session.fail(EXIT.failed);
    });
}
