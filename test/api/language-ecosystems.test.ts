/**
 * Rust, .NET and PHP end to end: an image holding a Rust service (its Cargo.lock and a cargo-auditable executable),
 * an ASP.NET Core app's deps.json and a PHP app's composer.lock with vendor/composer/installed.json is analyzed;
 * its content is listed by type, and its packages are matched against crates.io, NuGet and Packagist records
 * (each with a vulnerable and a fixed version, in each ecosystem's own version order and name rules). The image's
 * native SBOM, scanned, gives the same findings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar, type FileSpec } from '../support/image-builder.js';
import { CARGO_LOCK, aspNetDepsJson, COMPOSER_INSTALLED_JSON, COMPOSER_LOCK, auditData, elfWithSections } from '../support/language-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { osvRecord, writeRecords } from '../vulns/fixture-feed.js';

const RUST_BINARY = '/usr/local/bin/shop-api';
const CARGO_LOCK_PATH = '/src/shop-api/Cargo.lock';
const DEPS_JSON_PATH = '/app/WebShop.deps.json';
const COMPOSER_LOCK_PATH = '/var/www/html/composer.lock';
const INSTALLED_JSON_PATH = '/var/www/html/vendor/composer/installed.json';

const FEED = [
  // crates.io: hyper 0.14.10 is inside the window; tokio 1.35.1 is past the fix (semver order: 1.35 > 1.18).
  osvRecord('RUSTSEC-2021-0079', 'crates.io', 'hyper', [{ introduced: '0' }, { fixed: '0.14.10-rc.1' }, { introduced: '0.14.10' }, { fixed: '0.14.12' }], { aliases: ['CVE-2021-32715'] }),
  osvRecord('RUSTSEC-2023-0001', 'crates.io', 'tokio', [{ introduced: '1.7.0' }, { fixed: '1.18.4' }]),
  // NuGet: the record spells the id in another case; 13.0.1 is exactly Newtonsoft.Json's fix, and 4.7.1 (four
  // parts in the record: 4.7.1.0) is System.Text.Encodings.Web's.
  osvRecord('GHSA-98g6-xh36-x2p7', 'NuGet', 'microsoft.data.sqlclient', [{ introduced: '5.1.0' }, { fixed: '5.1.3' }], { aliases: ['CVE-2024-0056'] }),
  osvRecord('GHSA-5crp-9r3c-p9vr', 'NuGet', 'Newtonsoft.Json', [{ introduced: '0' }, { fixed: '13.0.1' }], { aliases: ['CVE-2024-21907'] }),
  osvRecord('GHSA-ghhp-997w-qr28', 'NuGet', 'System.Text.Encodings.Web', [{ introduced: '4.0.0' }, { fixed: '4.7.1.0' }], { aliases: ['CVE-2021-26701'] }),
  // Packagist: guzzlehttp/psr7 2.4.1 is below 2.4.5; symfony/http-foundation v6.4.0 (v prefix) is past 6.3.8.
  osvRecord('GHSA-wxmh-65f7-jcvw', 'Packagist', 'guzzlehttp/psr7', [{ introduced: '2.0.0' }, { fixed: '2.4.5' }], { aliases: ['CVE-2023-29197'] }),
  osvRecord('GHSA-mxmf-x4qc-2h6v', 'Packagist', 'symfony/http-foundation', [{ introduced: '6.0.0' }, { fixed: '6.3.8' }]),
];

const FINDINGS = [
  `GHSA-98g6-xh36-x2p7 nuget:Microsoft.Data.SqlClient@5.1.1 ${DEPS_JSON_PATH} fix=5.1.3`,
  `GHSA-wxmh-65f7-jcvw composer:guzzlehttp/psr7@2.4.1 ${INSTALLED_JSON_PATH} fix=2.4.5`,
  `RUSTSEC-2021-0079 rust:hyper@0.14.10 ${CARGO_LOCK_PATH} fix=0.14.12`,
  `RUSTSEC-2021-0079 rust:hyper@0.14.10 ${RUST_BINARY} fix=0.14.12`,
];

const rel = (path: string) => path.replace(/^\//, '');

const AUDITED = [
  { name: 'shop-api', version: '0.3.0', source: 'local', root: true, dependencies: [1, 2] },
  { name: 'hyper', version: '0.14.10', source: 'crates.io', dependencies: [2] },
  { name: 'bytes', version: '1.5.0', source: 'crates.io' },
  { name: 'cc', version: '1.0.83', source: 'crates.io', kind: 'build' as const },
];

function layers(): FileSpec[][] {
  return [
    [{ path: 'etc/os-release', content: 'ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n' }],
    [
      { path: rel(CARGO_LOCK_PATH), content: CARGO_LOCK },
      { path: rel(RUST_BINARY), content: elfWithSections({ '.text': Buffer.alloc(64, 0x90), '.dep-v0': auditData(AUDITED) }), mode: 0o755 },
    ],
    [
      { path: rel(DEPS_JSON_PATH), content: aspNetDepsJson() },
      { path: 'app/WebShop.dll', content: Buffer.from('MZ\x90\x00', 'latin1') },
      { path: 'app/WebShop.runtimeconfig.json', content: '{"runtimeOptions":{"tfm":"net8.0","framework":{"name":"Microsoft.AspNetCore.App","version":"8.0.0"}}}\n' },
    ],
    [
      { path: rel(COMPOSER_LOCK_PATH), content: COMPOSER_LOCK },
      { path: rel(INSTALLED_JSON_PATH), content: COMPOSER_INSTALLED_JSON },
    ],
  ];
}

let server: TestServer;
let work: string;
let digest: string;

interface Finding {
  vuln: string;
  package_name: string;
  package_version: string;
  package_type: string;
  package_path?: string;
  fix: string;
}

const summary = (list: Finding[]) => list.map((v) => `${v.vuln} ${v.package_type}:${v.package_name}@${v.package_version} ${v.package_path ?? ''} fix=${v.fix}`).sort();

async function content(type: string): Promise<{ package: string; version: string; type: string; location: string; purl: string }[]> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/content/${type}`);
  expect(res.status).toBe(200);
  expect(res.json.content_type).toBe(type);
  return res.json.content;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-lang-'));
  writeRecords(join(work, 'osv'), Object.fromEntries(FEED.map((r) => [r.id, r])));
  server = await startTestServer({ VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')}` });
  const synced = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
  expect(synced.json.status).toBe('done');
  const image = await buildImage({ layers: layers() });
  const res = await raw(server.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: ['registry.example.com/shop/polyglot:1.0'] }),
  });
  expect(res.status).toBe(200);
  digest = res.json.image_digest as string;
  expect(await waitForAnalysis(server, 'admin', digest)).toBe('analyzed');
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('content of a Rust, .NET and PHP image', () => {
  it('lists the new content types and counts their packages', async () => {
    const types = await raw(server.url, 'GET', `/v2/images/${digest}/content`);
    expect(types.json).toEqual(expect.arrayContaining(['rust', 'nuget', 'composer']));
    const counts = await raw(server.url, 'GET', `/v2/images/${digest}/content-summary`);
    const byType = Object.fromEntries(counts.json.items.map((i: { content_type: string; count: number }) => [i.content_type, i.count]));
    expect(byType).toMatchObject({ rust: 6, nuget: 4, composer: 4 });
  });

  it('lists the crates of the lock file and of the executable', async () => {
    const crates = await content('rust');
    expect(crates.map((c) => `${c.purl} ${c.location}`).sort()).toEqual([
      `pkg:cargo/bytes@1.5.0 ${CARGO_LOCK_PATH}`,
      `pkg:cargo/bytes@1.5.0 ${RUST_BINARY}`,
      `pkg:cargo/hyper@0.14.10 ${CARGO_LOCK_PATH}`,
      `pkg:cargo/hyper@0.14.10 ${RUST_BINARY}`,
      `pkg:cargo/smallvec@1.11.2 ${CARGO_LOCK_PATH}`,
      `pkg:cargo/tokio@1.35.1 ${CARGO_LOCK_PATH}`,
    ]);
    expect(crates.every((c) => c.type === 'rust')).toBe(true);
  });

  it('lists the NuGet packages of the deps.json', async () => {
    expect((await content('nuget')).map((p) => `${p.package}@${p.version} ${p.location}`).sort()).toEqual([
      `Microsoft.Data.SqlClient@5.1.1 ${DEPS_JSON_PATH}`,
      `Microsoft.Identity.Client@4.47.2 ${DEPS_JSON_PATH}`,
      `Newtonsoft.Json@13.0.1 ${DEPS_JSON_PATH}`,
      `System.Text.Encodings.Web@4.7.1 ${DEPS_JSON_PATH}`,
    ]);
  });

  it('lists installed Composer packages once, and the dev package only the lock file names', async () => {
    const pkgs = await content('composer');
    expect(pkgs.map((p) => `${p.purl} ${p.location}`).sort()).toEqual([
      `pkg:composer/guzzlehttp/psr7@2.4.1 ${INSTALLED_JSON_PATH}`,
      `pkg:composer/monolog/monolog@3.5.0 ${INSTALLED_JSON_PATH}`,
      `pkg:composer/phpunit/phpunit@10.5.1 ${COMPOSER_LOCK_PATH}`,
      `pkg:composer/symfony/http-foundation@v6.4.0 ${INSTALLED_JSON_PATH}`,
    ]);
  });
});

describe('matching against crates.io, NuGet and Packagist', () => {
  it('finds the vulnerable versions only', async () => {
    const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/all`);
    expect(res.status).toBe(200);
    expect(summary(res.json.vulnerabilities)).toEqual(FINDINGS);
  });

  it('reports records by package type in the vulnerability query', async () => {
    const res = await raw(server.url, 'GET', '/v2/query/vulnerabilities?affected_package=GuzzleHttp/Psr7&affected_package_version=2.4.1');
    expect(res.status).toBe(200);
    expect(res.json.vulnerabilities.map((v: { id: string; affected_packages: { type: string }[] }) => [v.id, v.affected_packages[0]!.type])).toEqual([['GHSA-wxmh-65f7-jcvw', 'composer']]);
  });

  it('gives the same findings for the exported native SBOM, whose artifacts carry syft type names', async () => {
    const sbom = await raw(server.url, 'GET', `/v2/images/${digest}/sboms/native-json`);
    expect(sbom.status).toBe(200);
    const types = new Set((sbom.json.artifacts as { type: string }[]).map((a) => a.type));
    expect([...types].sort()).toEqual(expect.arrayContaining(['dotnet', 'php-composer', 'rust-crate']));
    const scanned = await json(server.url, 'POST', '/v2/vulnerability-scan', sbom.json);
    expect(scanned.status).toBe(200);
    expect(summary(scanned.json.vulnerabilities)).toEqual(FINDINGS);
  });
});
