/**
 * The vigil CLI against a real server: every command group run in process through run(), with every API answer
 * checked against the spec; table, CSV, YAML and JSON output; exit codes 0, 1, 2 and 3; contexts and login; the
 * generated bash completion; and the progress display under a pseudo-terminal (util-linux `script`).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { json } from '../support/http.js';
import { dockerArchiveTar } from '../support/image-builder.js';
import { pushImage } from '../support/registry.js';
import { ADMIN_PASSWORD } from '../support/server.js';
import { debianImage, useCliHarness } from './support.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = '/usr/bin/script';

const h = useCliHarness();
const cli = h.cli;
let tag: string;
let digest: string;

beforeAll(async () => {
  await pushImage(h.registry.url, 'team/service', 'build-1', await debianImage('1'));
  tag = `${h.registry.host}/team/service:build-1`;
});

describe('vigil CLI', () => {
  it('syncs the feeds, waiting, and lists them', async () => {
    const sync = await cli(['feeds', 'sync', '--wait', '-o', 'json']);
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ status: 'done' });
    // Not a terminal: plain timestamped progress lines.
    expect(sync.stderr).toMatch(/^\d{4}-\d\d-\d\dT\S+Z syncing feeds\n/);

    const list = await cli(['feeds', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^FEED\s+ENABLED\s+GROUPS\s+RECORDS\s+LAST SYNC$/);
    expect(list.stdout).toContain('vulnerability_db');
  });

  it('adds an image and waits for its analysis, showing each state on plain lines', async () => {
    const added = await cli(['image', 'add', tag, '--wait', '-o', 'json']);
    expect(added.code).toBe(0);
    const image = JSON.parse(added.stdout);
    expect(image.analysis_status).toBe('analyzed');
    digest = image.image_digest;
    const lines = added.stderr.trim().split('\n');
    expect(lines.every((l) => /^\d{4}-\d\d-\d\dT[\d:.]+Z sha256:/.test(l))).toBe(true);
    expect(lines.at(-1)).toContain(': analyzed');
  });

  it('lists, gets and shows the content of images in table, YAML and CSV', async () => {
    const list = await cli(['image', 'list']);
    expect(list.code).toBe(0);
    const [header, row] = list.stdout.split('\n');
    expect(header).toMatch(/^DIGEST\s+TAGS\s+ANALYSIS\s+STATUS\s+ANALYZED AT$/);
    // Aligned: each value starts under its header.
    expect(row!.indexOf(tag)).toBe(header!.indexOf('TAGS'));
    expect(row!.indexOf('analyzed')).toBe(header!.indexOf('ANALYSIS'));
    expect(list.stdout).not.toContain('\x1b[');

    const got = await cli(['image', 'get', tag, '-o', 'yaml']);
    expect(got.code).toBe(0);
    expect(yaml.load(got.stdout)).toMatchObject({ image_digest: digest, analysis_status: 'analyzed' });
    const byDigest = await cli(['image', 'get', digest]);
    expect(byDigest.stdout).toMatch(/^FIELD\s+VALUE\n/);
    expect(byDigest.stdout).toMatch(/\ntags\s+\S+team\/service:build-1\n/);

    const content = await cli(['image', 'content', tag, 'os', '-o', 'csv']);
    expect(content.code).toBe(0);
    const csv = content.stdout.split('\r\n');
    expect(csv[0]).toBe('package,version,type,licenses,location');
    expect(csv.some((l) => l.startsWith('libssl3,3.0.11-1~deb12u2,dpkg,'))).toBe(true);
  });

  it('uploads an archive, lists its files and licenses, and deletes it', async () => {
    const archive = join(h.work, 'app.tar');
    writeFileSync(archive, await dockerArchiveTar(await debianImage('archive'), { repoTags: ['local/app:archive'] }));
    const added = await cli(['image', 'add', 'local/app:archive', '--from-archive', archive, '--wait', '-o', 'json']);
    expect(added.code).toBe(0);
    const uploaded = JSON.parse(added.stdout);
    expect(uploaded.analysis_status).toBe('analyzed');

    const files = await cli(['image', 'content', uploaded.image_digest, 'files']);
    expect(files.stdout.split('\n')[0]).toMatch(/^FILE\s+TYPE\s+MODE\s+SIZE\s+LINK$/);
    expect(files.stdout).toContain('/etc/build-marker');
    const licenses = await cli(['image', 'content', 'docker.io/local/app:archive', 'licenses', '-o', 'json']);
    expect(licenses.code).toBe(0);
    expect(Array.isArray(JSON.parse(licenses.stdout).items)).toBe(true);

    const deleted = await cli(['image', 'delete', 'local/app:archive', '-o', 'json']);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ image_digest: uploaded.image_digest });
    expect((await cli(['image', 'list', '--tag', 'local/app:archive', '-o', 'json'])).stdout).not.toContain(uploaded.image_digest);
  });

  it('colours tables only on a terminal without NO_COLOR', async () => {
    expect((await cli(['image', 'list'], { tty: true })).stdout).toContain('\x1b[1m');
    expect((await cli(['image', 'list'], { tty: true, env: { NO_COLOR: '1' } })).stdout).not.toContain('\x1b[');
  });

  it('gates on vulnerabilities with --fail-on and --kev (exit 1), and passes under the threshold', async () => {
    const all = await cli(['image', 'vulns', tag, '-o', 'json']);
    expect(all.code).toBe(0);
    const answer = JSON.parse(all.stdout);
    expect(answer.vulnerability_type).toBe('all');
    expect(answer.vulnerabilities.map((v: { vuln: string }) => v.vuln)).toContain('DSA-9001-1');

    const gate = await cli(['image', 'vulns', tag, '--fail-on', 'critical']);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/\nDSA-9001-1\s+Critical\s+libssl3\s/);
    expect(gate.stderr).toMatch(/finding\(s\) at or above Critical: failing/);

    const kev = await cli(['image', 'vulns', tag, '--kev', '--fail-on', 'unknown', '-o', 'json']);
    expect(kev.code).toBe(1);
    expect(JSON.parse(kev.stdout).vulnerabilities.map((v: { vuln: string; is_kev: boolean }) => [v.vuln, v.is_kev])).toEqual([['DSA-9001-1', true]]);

    expect((await cli(['image', 'vulns', tag, '--type', 'non-os', '--fail-on', 'low'])).code).toBe(0);
  });

  it('checks policy: a failing result exits 1 only with --fail-based-on-results', async () => {
    const plain = await cli(['image', 'check', tag]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/\nstatus\s+fail\n/);
    expect(plain.stderr).toContain('fail (stop)');

    const gated = await cli(['image', 'check', digest, '--fail-based-on-results', '--detail', '-o', 'json']);
    expect(gated.code).toBe(1);
    const evaluation = JSON.parse(gated.stdout);
    expect(evaluation).toMatchObject({ image_digest: digest, evaluated_tag: tag, evaluations: [{ status: 'fail', final_action: 'stop' }] });

    const detail = await cli(['image', 'check', tag, '--detail']);
    expect(detail.stdout.split('\n')[0]).toMatch(/^GATE\s+TRIGGER\s+ACTION\s+TRIGGER ID\s+MESSAGE$/);
    expect(detail.stdout).toContain('DSA-9001-1+libssl3');
  });

  it('prints SBOMs as served and scans one without storing it', async () => {
    const cdx = await cli(['image', 'sbom', tag, '--format', 'cyclonedx-json']);
    expect(cdx.code).toBe(0);
    expect(JSON.parse(cdx.stdout)).toMatchObject({ bomFormat: 'CycloneDX' });
    const spdx = await cli(['image', 'sbom', tag, '--format', 'spdx-json']);
    expect(JSON.parse(spdx.stdout).spdxVersion).toMatch(/^SPDX-2\./);
    expect((await cli(['image', 'sbom', tag, '--format', 'pdf'])).code).toBe(2);

    const file = join(h.work, 'sbom.cdx.json');
    writeFileSync(file, cdx.stdout);
    const scan = await cli(['sbom', 'scan', file, '--fail-on', 'high']);
    expect(scan.code).toBe(1);
    expect(scan.stdout).toMatch(/\nDSA-9001-1\s+Critical\s+libssl3\s/);
    writeFileSync(join(h.work, 'not.json'), 'nope');
    const bad = await cli(['sbom', 'scan', join(h.work, 'not.json')]);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toContain('is not JSON');
  });

  it('lists, gets, validates, adds and activates policies', async () => {
    const list = await cli(['policy', 'list', '-o', 'json']);
    expect(list.code).toBe(0);
    const records = JSON.parse(list.stdout);
    expect(records.find((r: { active: boolean }) => r.active).policy_id).toBe('vigil-default');

    const got = await cli(['policy', 'get', 'vigil-default', '-o', 'json']);
    const document = JSON.parse(got.stdout).policy;
    const draft = { ...document, id: 'cli-draft', name: 'CLI draft' };
    const draftFile = join(h.work, 'draft.yaml');
    writeFileSync(draftFile, yaml.dump(draft));

    const valid = await cli(['policy', 'validate', draftFile]);
    expect(valid.code).toBe(0);
    expect(valid.stderr).toContain('valid;');

    // Two problems at once: the API lists both, and the CLI prints each.
    const broken = { ...draft, rule_sets: [{ ...draft.rule_sets[0], rules: [{ ...draft.rule_sets[0].rules[0], gate: 'no_such_gate', action: 'explode' }] }] };
    const brokenFile = join(h.work, 'broken.json');
    writeFileSync(brokenFile, JSON.stringify(broken));
    const invalid = await cli(['policy', 'validate', brokenFile]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^error: .+ \(HTTP 400 \S+, request id \S+\)\n/);
    expect(invalid.stderr.split('\n').filter((l) => l.startsWith('  - ')).length).toBeGreaterThanOrEqual(2);

    const added = await cli(['policy', 'add', draftFile, '--activate', '-o', 'json']);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ policy_id: 'cli-draft', active: true });
    const back = await cli(['policy', 'activate', 'vigil-default']);
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/\nactive\s+true\n/);
  });

  it('answers API and usage errors with exit code 2, the API message and the request id', async () => {
    const missing = await cli(['image', 'get', `sha256:${'0'.repeat(64)}`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: .+ \(HTTP 404 not_found, request id [\w-]+\)\n$/);

    const wrongPassword = await cli(['image', 'list'], { env: { VIGIL_PASSWORD: 'wrong' } });
    expect(wrongPassword.code).toBe(2);
    expect(wrongPassword.stderr).toContain('HTTP 401');

    const noAccount = await cli(['image', 'list', '--account', 'no-such-account']);
    expect(noAccount.code).toBe(2);
    expect(noAccount.stderr).toContain('HTTP 404');

    const usage = await cli(['image', 'vulns', tag, '--type', 'everything']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("option '--type <type>' argument 'everything' is invalid");
    expect((await cli(['nope'])).code).toBe(2);
    expect((await cli(['image', 'add', 'Not A Tag'])).stderr).toContain('error: ');

    const help = await cli(['image', 'check', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--fail-based-on-results');
  });

  it('times out a --wait with exit code 3', async () => {
    await pushImage(h.registry.url, 'team/service', 'build-2', await debianImage('2'));
    const slow = await cli(['image', 'add', `${h.registry.host}/team/service:build-2`, '--wait', '--timeout', '0', '-o', 'json']);
    expect(slow.code).toBe(3);
    expect(slow.stderr).toMatch(/did not finish within 0s/);
    const second = await cli(['image', 'get', `${h.registry.host}/team/service:build-2`, '-o', 'json']);
    // Let the analysis settle before the server closes.
    await waitForAnalysis(h.server, 'admin', JSON.parse(second.stdout).image_digest);
  });

  it('logs in: stores a token in a 0600 file, uses the context, and renews an expired token', async () => {
    const login = await cli(['login', '--name', 'ci']);
    expect(login.code).toBe(0);
    const file = join(h.configHome, 'vigil', 'config.yaml');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const config = yaml.load(readFileSync(file, 'utf8')) as { 'current-context': string; contexts: Record<string, Record<string, string>> };
    expect(config['current-context']).toBe('ci');
    expect(config.contexts.ci).toMatchObject({ url: h.server.url, username: 'admin' });
    expect(config.contexts.ci!.password).toBeUndefined();
    expect(config.contexts.ci!.token).toBeTruthy();

    // No credentials in the environment: the context's token is used.
    const ctx = await cli(['image', 'list', '-o', 'json'], { credentials: false, env: { VIGIL_URL: undefined } });
    expect(ctx.stderr).toBe('');
    expect(ctx.code).toBe(0);

    config.contexts.ci!['token-expires-at'] = new Date(Date.now() - 1000).toISOString();
    writeFileSync(file, yaml.dump(config));
    expect((await cli(['system', 'status'], { credentials: false })).code).toBe(0);
    const renewed = yaml.load(readFileSync(file, 'utf8')) as typeof config;
    expect(renewed.contexts.ci!.token).not.toBe(config.contexts.ci!.token);
    expect(Date.parse(renewed.contexts.ci!['token-expires-at']!)).toBeGreaterThan(Date.now());

    const unknown = await cli(['image', 'list', '--context', 'nope'], { credentials: false });
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('no context named nope (known: ci)');
  });

  it('takes an API key from the flag, over the environment', async () => {
    const key = await json(h.server.url, 'POST', '/v2/user/api-keys', { name: 'cli-test' });
    expect(key.status).toBe(201);
    const withKey = await cli(['system', 'status', '--api-key', key.json.value, '-o', 'json'], { env: { VIGIL_PASSWORD: 'wrong' } });
    expect(withKey.code).toBe(0);
    expect(JSON.parse(withKey.stdout).service_states.length).toBeGreaterThan(0);
  });

  it('prints the versions', async () => {
    const version = await cli(['version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/\nclient\s+\d+\.\d+\.\d+\n/);
    expect(version.stdout).toMatch(/\ndb schema\s+\S+\n/);
  });

  it('generates bash completion from the command tree', async () => {
    const script = (await cli(['completion', 'bash'])).stdout;
    const complete = (words: string[]) =>
      new Promise<string>((resolve, reject) => {
        const bash = spawn('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _vigil; echo "\${COMPREPLY[*]}"`]);
        let out = '';
        bash.stdout.on('data', (d: Buffer) => (out += d));
        bash.on('error', reject);
        bash.on('close', () => resolve(out.trim()));
      });
    expect(await complete(['vigil', 'ima'])).toBe('image');
    expect((await complete(['vigil', 'image', ''])).split(' ')).toEqual(expect.arrayContaining(['add', 'list', 'check', 'vulns', 'sbom']));
    expect((await complete(['vigil', 'image', 'check', 'x', '--fail'])).split(' ')).toEqual(['--fail-based-on-results']);
  });

  it.skipIf(!existsSync(SCRIPT))('shows a spinner under a pseudo-terminal (needs `script`: apt-get install bsdutils)', { timeout: 60_000 }, async () => {
    await pushImage(h.registry.url, 'team/service', 'build-3', await debianImage('3'));
    const command = `${join(ROOT, 'node_modules', '.bin', 'tsx')} ${join(ROOT, 'src', 'cli', 'main.ts')} image add ${h.registry.host}/team/service:build-3 --wait`;
    const output = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
      const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], {
        env: { ...process.env, VIGIL_URL: h.server.url, VIGIL_USERNAME: 'admin', VIGIL_PASSWORD: ADMIN_PASSWORD, XDG_CONFIG_HOME: h.configHome, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d));
      child.stderr.on('data', (d: Buffer) => (text += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, text }));
    });
    expect(output.code).toBe(0);
    // A spinner frame redrawn in place, then the final state on its own line.
    expect(output.text).toMatch(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] sha256:[0-9a-f]{64}: /);
    expect(output.text).toMatch(/\r\x1b\[2Ksha256:[0-9a-f]{64}: analyzed\r?\n/);
    expect(output.text).toMatch(/analysis\s+analyzed/);
  });
});
