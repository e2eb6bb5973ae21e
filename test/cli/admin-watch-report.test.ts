/**
 * The vigil CLI's watch, event, administration, report and policy dry-run commands against a real server (the
 * harness of test/cli/support.ts): subscription, repo, events (with --follow), account, user, api-key, role,
 * report query and report scheduled, policy dry-run, system services and feeds; table, CSV and JSON output and
 * exit codes, including what a user who is not an administrator gets.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { refreshReports } from '../support/graphql.js';
import { json } from '../support/http.js';
import { pushImage } from '../support/registry.js';
import { debianImage, useCliHarness } from './support.js';

const h = useCliHarness();
const cli = h.cli;
let tag: string;
let digest: string;

beforeAll(async () => {
  await pushImage(h.registry.url, 'team/app', 'v1', await debianImage('app'));
  tag = `${h.registry.host}/team/app:v1`;
  expect((await cli(['feeds', 'sync', '--wait'])).code).toBe(0);
  const added = await cli(['image', 'add', tag, '--wait', '-o', 'json']);
  expect(added.code).toBe(0);
  digest = JSON.parse(added.stdout).image_digest;
});

describe('vigil CLI: system, subscriptions and repositories', () => {
  it('lists the registered services and the feeds', async () => {
    const services = await cli(['system', 'services']);
    expect(services.code).toBe(0);
    expect(services.stdout.split('\n')[0]).toMatch(/^SERVICE\s+HOST\s+STATUS\s+VERSION\s+URL\s+MESSAGE$/);
    expect(services.stdout).toMatch(/\napiext\s+\S+\s+up\s/);
    const asJson = JSON.parse((await cli(['system', 'services', '-o', 'json'])).stdout);
    expect(asJson.map((s: { service_name: string }) => s.service_name)).toContain('policy_engine');

    const feeds = await cli(['system', 'feeds', '-o', 'csv']);
    expect(feeds.code).toBe(0);
    expect(feeds.stdout.split('\r\n')[0]).toBe('feed,enabled,groups,records,last sync');
    expect(feeds.stdout).toContain('vulnerability_db,');
  });

  it('activates, lists and deactivates a subscription, creating it on first activation', async () => {
    const activated = await cli(['subscription', 'activate', 'vuln_update', tag, '-o', 'json']);
    expect(activated.code).toBe(0);
    const [created] = JSON.parse(activated.stdout);
    expect(created).toMatchObject({ subscription_type: 'vuln_update', subscription_key: tag, active: true });

    const deactivated = await cli(['subscription', 'deactivate', 'vuln_update', tag]);
    expect(deactivated.code).toBe(0);
    expect(deactivated.stdout).toMatch(new RegExp(`\\n${tag.replace(/[.:/]/g, '\\$&')}\\s+vuln_update\\s+inactive\\s`));

    // Activating again flips the same subscription back, rather than adding a second one.
    const again = JSON.parse((await cli(['subscription', 'activate', 'vuln_update', tag, '-o', 'json'])).stdout);
    expect(again[0]).toMatchObject({ subscription_id: created.subscription_id, active: true });
    const list = JSON.parse((await cli(['subscription', 'list', '--type', 'vuln_update', '-o', 'json'])).stdout);
    expect(list.map((s: { subscription_id: string }) => s.subscription_id)).toEqual([created.subscription_id]);
    const table = await cli(['subscription', 'list', '--key', tag]);
    expect(table.stdout.split('\n')[0]).toMatch(/^KEY\s+TYPE\s+ACTIVE\s+VALUE\s+ID$/);

    const none = await cli(['subscription', 'deactivate', 'policy_eval', `${h.registry.host}/team/app:nope`]);
    expect(none).toMatchObject({ code: 2, stdout: '' });
    expect(none.stderr).toContain('has no policy_eval subscription');
    const badType = await cli(['subscription', 'activate', 'tag_updates', tag]);
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain('expected one of tag_update, vuln_update, policy_eval, analysis_update, repo_update');
  });

  it('watches a repository (a dry run first) and lists the watched ones', async () => {
    await pushImage(h.registry.url, 'team/watched', 'a', await debianImage('watched-a'));
    const repository = `${h.registry.host}/team/watched`;
    const dry = await cli(['repo', 'add', repository, '--dry-run', '-o', 'json']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).map((s: { subscription_key: string }) => s.subscription_key)).toContain(`${repository}:a`);
    expect(JSON.parse((await cli(['repo', 'list', '-o', 'json'])).stdout)).toEqual([]);

    // Only tags that appear from now on (the existing one is subscribed inactive), so no analysis starts here.
    const added = await cli(['repo', 'add', repository, '--exclude-existing-tags', '-o', 'json']);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual([
      expect.objectContaining({ subscription_type: 'repo_update', subscription_key: repository, active: true }),
      expect.objectContaining({ subscription_type: 'tag_update', subscription_key: `${repository}:a`, active: false }),
    ]);
    const list = await cli(['repo', 'list']);
    expect(list.stdout).toMatch(new RegExp(`\\n${repository.replace(/[.:/]/g, '\\$&')}\\s+repo_update\\s+active\\s`));
    const withTag = await cli(['repo', 'add', `${repository}:a`]);
    expect(withTag.code).toBe(2);
    expect(withTag.stderr).toMatch(/^error: repository must name a repository, without tag or digest \(HTTP 400/);
  });
});

describe('vigil CLI: events', () => {
  it('lists events, filtered, in table and JSON', async () => {
    const listed = await cli(['events', 'list', '--type', 'user.image.', '--resource-id', digest, '-o', 'json']);
    expect(listed.code).toBe(0);
    const types = JSON.parse(listed.stdout).results.map((e: { event: { type: string } }) => e.event.type);
    expect(types).toContain('user.image.analysis.completed');
    const table = await cli(['events', 'list', '--limit', '1']);
    expect(table.stdout.split('\n')[0]).toMatch(/^TIME\s+LEVEL\s+TYPE\s+RESOURCE\s+MESSAGE$/);
    expect(table.stdout.trim().split('\n')).toHaveLength(2);
    expect(table.stderr).toContain('more events than --limit 1');
    const timed = await cli(['events', 'list', '--follow', '--timeout', '0', '--limit', '1', '-o', 'csv']);
    expect(timed.code).toBe(0);
    expect(timed.stdout.split('\r\n')).toEqual(['time,level,type,resource,message', expect.stringMatching(/^\d{4}-/), '']);
    expect((await cli(['events', 'list', '--since', 'yesterday-ish'])).code).toBe(2);
    expect((await cli(['events', 'list', '--timeout', '5'])).stderr).toContain('--timeout applies to --follow only');
  });

  it('follows: prints the latest events, then each new one once, until interrupted (exit 0)', async () => {
    type Line = { generated_uuid: string; event: { type: string; timestamp: string; resource: { id: string } } };
    const interrupt = new AbortController();
    let out = '';
    let waiter: { test: (lines: Line[]) => boolean; resolve: () => void } | undefined;
    const lines = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
    /** Resolves once what the command printed satisfies test (checked on every write, so no polling here). */
    const until = (test: (lines: Line[]) => boolean) =>
      new Promise<void>((resolve) => {
        if (test(lines())) return resolve();
        waiter = { test, resolve };
      });
    const following = cli(['events', 'list', '--follow', '--type', 'user.image.', '--limit', '2', '-o', 'json'], {
      signal: interrupt.signal,
      onStdout: (stdout) => {
        out = stdout;
        if (waiter?.test(lines())) waiter.resolve();
      },
    });
    await until((l) => l.length >= 2);

    // A new image: its analysis adds user.image.* events while the command follows.
    await pushImage(h.registry.url, 'team/app', 'v2', await debianImage('app-2'));
    const added = await json(h.server.url, 'POST', '/v2/images', { source: { tag: { pull_string: `${h.registry.host}/team/app:v2` } } });
    expect(added.status).toBe(200);
    const newDigest = added.json.image_digest as string;
    await until((l) => l.some((e) => e.event.resource.id === newDigest && e.event.type === 'user.image.analysis.completed'));
    interrupt.abort();
    const ran = await following;
    expect(ran.code).toBe(0);
    const all = lines();
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(new Set(all.map((e) => e.generated_uuid)).size).toBe(all.length);
    // Oldest first, as a log reads.
    const times = all.map((e) => Date.parse(e.event.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});

describe('vigil CLI: accounts, users, API keys and roles', () => {
  it('creates an account and a user, grants a role, and the user manages its own API key', async () => {
    const account = await cli(['account', 'add', 'team-cli', '--email', 'team@example.com', '-o', 'json']);
    expect(account.code).toBe(0);
    expect(JSON.parse(account.stdout)).toMatchObject({ name: 'team-cli', type: 'user', state: 'enabled', email: 'team@example.com' });
    const accounts = await cli(['account', 'list']);
    expect(accounts.stdout.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+STATE\s+EMAIL\s+CREATED AT$/);
    expect(accounts.stdout).toMatch(/\nteam-cli\s+user\s+enabled\s+team@example\.com\s/);
    expect(yaml.load((await cli(['account', 'get', 'team-cli', '-o', 'yaml'])).stdout)).toMatchObject({ name: 'team-cli' });
    expect((await cli(['account', 'get'])).stdout).toMatch(/\nname\s+admin\n/);

    const passwordFile = join(h.work, 'carol.password');
    writeFileSync(passwordFile, 'carol-secret-1\n');
    const user = await cli(['user', 'add', 'carol', '--password-file', passwordFile, '--account', 'team-cli', '-o', 'json']);
    expect(user.code).toBe(0);
    expect(JSON.parse(user.stdout)).toMatchObject({ username: 'carol', account_name: 'team-cli', state: 'enabled' });
    expect((await cli(['user', 'list', '--account', 'team-cli'])).stdout).toMatch(/\ncarol\s+team-cli\s+native\s+enabled\s/);
    const all = JSON.parse((await cli(['user', 'list', '--all', '-o', 'json'])).stdout);
    expect(all.items.map((u: { username: string }) => u.username)).toEqual(expect.arrayContaining(['admin', 'carol']));

    const grant = await cli(['role', 'grant', 'read-only', 'carol', '--account', 'team-cli', '-o', 'json']);
    expect(grant.code).toBe(0);
    expect(JSON.parse(grant.stdout)).toMatchObject({ username: 'carol', domain_name: 'team-cli' });
    expect((await cli(['role', 'members', 'read-only', '--account', 'team-cli'])).stdout).toMatch(/\ncarol\s+team-cli\s/);
    const roles = await cli(['role', 'list', '-o', 'json']);
    expect(roles.code).toBe(0);
    expect(JSON.parse(roles.stdout).map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['read-only', 'image-analyzer']));

    // carol is not an administrator: administration answers the API's 403, exit code 2.
    const asCarol = { env: { VIGIL_USERNAME: 'carol', VIGIL_PASSWORD: 'carol-secret-1' } };
    const refused = await cli(['account', 'list'], asCarol);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toMatch(/^error: .+ \(HTTP 403 \S+, request id [\w-]+\)\n$/);
    expect((await cli(['user', 'list', '--account', 'admin'], asCarol)).code).toBe(2);

    const key = await cli(['api-key', 'add', 'ci', '--description', 'pipeline', '-o', 'json'], asCarol);
    expect(key.code).toBe(0);
    expect(key.stderr).toContain('shown only now');
    const { value } = JSON.parse(key.stdout);
    expect(value).toBeTruthy();
    const withKey = { credentials: false, env: { VIGIL_API_KEY: value } };
    expect((await cli(['account', 'get'], withKey)).stdout).toMatch(/\nname\s+team-cli\n/);
    expect((await cli(['api-key', 'list'], asCarol)).stdout).toMatch(/\nci\s+active\s+\S+\s+\S+\s+pipeline\n/);
    const revoked = await cli(['api-key', 'revoke', 'ci', '-o', 'json'], asCarol);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ name: 'ci', status: 'revoked' });
    const dead = await cli(['account', 'get'], withKey);
    expect(dead.code).toBe(2);
    expect(dead.stderr).toContain('HTTP 401');

    // The administrator sees carol's keys, then removes the role and the user.
    const carolsKeys = JSON.parse((await cli(['api-key', 'list', '--user', 'carol', '--account', 'team-cli', '-o', 'json'])).stdout);
    expect(carolsKeys.items).toEqual([expect.objectContaining({ name: 'ci', status: 'revoked' })]);
    expect((await cli(['role', 'revoke', 'read-only', 'carol', '--account', 'team-cli'])).code).toBe(0);
    expect(JSON.parse((await cli(['role', 'members', 'read-only', '--account', 'team-cli', '-o', 'json'])).stdout)).toEqual([]);
    const deleted = await cli(['user', 'delete', 'carol', '--account', 'team-cli']);
    expect(deleted).toMatchObject({ code: 0, stdout: '' });
    expect(deleted.stderr).toContain('deleted user carol of account team-cli');
    expect((await cli(['user', 'delete', 'carol', '--account', 'team-cli'])).stderr).toContain('HTTP 404');

    writeFileSync(passwordFile, '');
    expect((await cli(['user', 'add', 'dave', '--password-file', passwordFile, '--account', 'team-cli'])).stderr).toContain('holds no password');
  });
});

describe('vigil CLI: reports and policy dry runs', () => {
  it('runs a GraphQL report query from a flag or a file, in table and JSON, and reports its errors', async () => {
    await refreshReports(h.server);
    const query = '{ tagsByVulnerability(limit: 50) { pageInfo { nextToken count } results { vulnerabilityId severity } } }';
    const table = await cli(['report', 'query', '--query', query]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^VULNERABILITYID\s+SEVERITY$/);
    expect(table.stdout).toMatch(/\nDSA-9001-1\s+Critical\n/);

    const file = join(h.work, 'by-severity.graphql');
    writeFileSync(file, 'query ($severity: Severity) { tagsByVulnerability(limit: 1, filter: { vulnerability: { severity: $severity } }) { pageInfo { nextToken } results { vulnerabilityId } } }');
    const asJson = await cli(['report', 'query', file, '--variables', '{"severity": "Critical"}', '-o', 'json']);
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout).data.tagsByVulnerability.results).toEqual([{ vulnerabilityId: expect.any(String) }]);

    const bad = await cli(['report', 'query', '--query', '{ noSuchReport { x } }']);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toMatch(/^error: the report query failed \(HTTP \d+/);
    expect(bad.stderr).toContain('noSuchReport');
    expect((await cli(['report', 'query'])).stderr).toContain('either as a FILE or with --query');
    expect((await cli(['report', 'query', '--query', query, '--variables', '[1]'])).stderr).toContain('must be a JSON object');
  });

  it('lists scheduled queries, runs one waiting for it, and reads its stored result', async () => {
    const create = await cli([
      'report',
      'query',
      '--query',
      'mutation ($q: String!) { createScheduledQuery(name: "cli critical", cronSchedule: "0 0 1 1 *", query: $q) { ok scheduledQuery { uuid name } } }',
      '--variables',
      JSON.stringify({ q: '{ tagsByVulnerability { results { vulnerabilityId severity } } }' }),
      '-o',
      'json',
    ]);
    expect(create.code).toBe(0);
    const uuid = JSON.parse(create.stdout).data.createScheduledQuery.scheduledQuery.uuid as string;

    const list = await cli(['report', 'scheduled', 'list']);
    expect(list.stdout.split('\n')[0]).toMatch(/^UUID\s+NAME\s+SCHEDULE\s+ENABLED\s+NEXT RUN$/);
    expect(list.stdout).toMatch(new RegExp(`\\n${uuid}\\s+cli critical\\s+0 0 1 1 \\*\\s+true\\s`));

    const run = await cli(['report', 'scheduled', 'run', uuid, '--wait', '-o', 'json']);
    expect(run.code).toBe(0);
    const execution = JSON.parse(run.stdout);
    expect(execution).toMatchObject({ queryUuid: uuid, status: 'complete' });
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/scheduled query run \S+: complete$/);

    const results = await cli(['report', 'scheduled', 'results', execution.uuid]);
    expect(results.code).toBe(0);
    expect(results.stdout).toMatch(/^VULNERABILITYID\s+SEVERITY\n/);
    expect(results.stdout).toContain('DSA-9001-1');
    expect(results.stderr).toMatch(/tagsByVulnerability: page 1, \d+ of \d+/);
    const page = JSON.parse((await cli(['report', 'scheduled', 'results', execution.uuid, '-o', 'json'])).stdout);
    expect(page).toMatchObject({ page: 1, execution: { uuid: execution.uuid, status: 'complete' } });
    expect((await cli(['report', 'scheduled', 'results', '00000000-0000-0000-0000-000000000000'])).stderr).toContain('HTTP 404');
  });

  it('dry-runs a draft policy for one image: a failing draft exits 1 with --fail-based-on-results', async () => {
    const document = JSON.parse((await cli(['policy', 'get', 'vigil-default', '-o', 'json'])).stdout).policy;
    const strict = join(h.work, 'strict.json');
    writeFileSync(strict, JSON.stringify({ ...document, id: 'cli-strict', name: 'strict' }));
    const failing = await cli(['policy', 'dry-run', strict, '--image', tag, '--fail-based-on-results']);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain(`${tag}: active policy vigil-default fail, draft cli-strict fail (stop: `);
    expect(failing.stdout.split('\n')[0]).toMatch(/^TAG\s+GATE\s+TRIGGER\s+TRIGGER ID\s+MESSAGE$/);
    expect(failing.stdout).toContain('DSA-9001-1');

    // Every rule only warns: the draft passes the image.
    const lenient = join(h.work, 'lenient.yaml');
    const warnOnly = { ...document, id: 'cli-lenient', rule_sets: document.rule_sets.map((r: { rules: object[] }) => ({ ...r, rules: r.rules.map((rule) => ({ ...rule, action: 'warn' })) })) };
    writeFileSync(lenient, yaml.dump(warnOnly));
    const passing = await cli(['policy', 'dry-run', lenient, '--image', digest, '--fail-based-on-results', '-o', 'json']);
    expect(passing.code).toBe(0);
    const answer = JSON.parse(passing.stdout);
    expect(answer.tags).toEqual([expect.objectContaining({ tag, image_digest: digest, draft: expect.objectContaining({ status: 'pass' }), change: 'fail_to_pass' })]);

    const unknown = await cli(['policy', 'dry-run', strict, '--image', `${h.registry.host}/team/none:v1`]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no image tagged');
    expect((await cli(['policy', 'dry-run', strict])).stderr).toContain("required option '--image <ref>' not specified");
  });
});
