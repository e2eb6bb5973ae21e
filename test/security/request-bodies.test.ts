/**
 * Issue 14, item 8: hostile request bodies — nesting deep enough to exhaust the stack, and compressed bodies
 * that are garbage or inflate past the body limit — are answered 4xx in the error shape, never 500.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSbomPackages } from '../../src/images/sbom/index.js';
import { expectError } from '../support/fixtures.js';
import { client, json, raw } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
const BODY_LIMIT = 1024 * 1024;

beforeAll(async () => {
  server = await startTestServer({ VIGIL_BODY_LIMIT: String(BODY_LIMIT) });
});
afterAll(async () => {
  await server?.close();
});

/** A CycloneDX document whose single component nests `depth` components, one inside the other. */
function nestedCycloneDx(depth: number): string {
  const open = '{"type":"library","name":"p","version":"1","purl":"pkg:npm/p@1","components":[';
  return `{"bomFormat":"CycloneDX","specVersion":"1.5","version":1,"components":[${open.repeat(depth)}${']}'.repeat(depth)}]}`;
}

async function importOperation(): Promise<string> {
  const { data } = await client(server.url).POST('/imports/images');
  return data!.uuid;
}

const postJson = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  raw(server.url, 'POST', path, { headers: { 'content-type': 'application/json', ...headers }, body });

describe('deeply nested JSON', () => {
  it('answers 400 naming the depth for a CycloneDX SBOM nested 12,000 components deep (scan and import)', async () => {
    const sbom = nestedCycloneDx(12_000);
    expect(sbom.length).toBeLessThan(BODY_LIMIT);
    const scan = await postJson('/v2/vulnerability-scan', sbom);
    expectError(scan, 400, 'validation_error');
    expect(scan.json.message).toMatch(/nest/);
    expect(scan.json.detail.max_depth).toBeTypeOf('number');

    const imported = await postJson(`/v2/imports/images/${await importOperation()}/packages`, sbom);
    expectError(imported, 400, 'validation_error');
  });

  it('answers 400 for any JSON body nested deeper than the limit (an import part that is stored as it came)', async () => {
    const depth = 100_000;
    const manifest = `{"schemaVersion":2,"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    expectError(await postJson(`/v2/imports/images/${await importOperation()}/manifest`, manifest), 400, 'validation_error');
  });

  it('still reads an SBOM with realistically nested components', async () => {
    const res = await postJson('/v2/vulnerability-scan', nestedCycloneDx(20));
    expect(res.status, res.text).toBe(200);
  });

  it('counts nesting outside strings only', async () => {
    const brackets = '['.repeat(5_000);
    const res = await json(server.url, 'POST', '/v2/vulnerability-scan', {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      components: [{ type: 'library', name: `"${brackets}\\`, version: '1', description: brackets }],
    });
    expect(res.status, res.text).toBe(200);
  });
});

describe('SBOM readers', () => {
  const npm = (name: string) => ({ type: 'library', name, version: '1', purl: `pkg:npm/${name}@1` });

  it('walk CycloneDX component nesting without recursion, in document order', () => {
    // Readers also run on stored import parts, so they must not depend on the request-body depth limit.
    const read = readSbomPackages(JSON.parse(nestedCycloneDx(12_000)));
    expect(read.packages).toHaveLength(12_000);
    const ordered = readSbomPackages({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      metadata: { component: { type: 'container', name: 'image', components: [npm('a')] } },
      components: [{ ...npm('b'), components: [npm('c')] }, npm('d')],
    });
    expect(ordered.packages.map((p) => p.name)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('compressed bodies', () => {
  const sbom = Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, components: [] }));

  it('reads a well-formed deflate or gzip body', async () => {
    expect((await postJson('/v2/vulnerability-scan', deflateSync(sbom), { 'content-encoding': 'deflate' })).status).toBe(200);
    expect((await postJson('/v2/vulnerability-scan', gzipSync(sbom), { 'content-encoding': 'gzip' })).status).toBe(200);
  });

  it.each(['deflate', 'gzip', 'br'])('answers 400 for a %s body that is garbage', async (encoding) => {
    const res = await postJson('/v2/vulnerability-scan', Buffer.from('this is not compressed at all, just garbage bytes'), { 'content-encoding': encoding });
    expectError(res, 400, 'validation_error');
    expect(res.json.message).toMatch(new RegExp(encoding));
  });

  it('answers 400 for a truncated gzip body', async () => {
    const gz = gzipSync(sbom);
    expectError(await postJson('/v2/vulnerability-scan', gz.subarray(0, gz.length - 12), { 'content-encoding': 'gzip' }), 400, 'validation_error');
  });

  it('answers 413 for a small gzip body that inflates past VIGIL_BODY_LIMIT', async () => {
    const bomb = gzipSync(Buffer.alloc(BODY_LIMIT * 8, 0x20));
    expect(bomb.length).toBeLessThan(BODY_LIMIT / 16);
    expectError(await postJson('/v2/vulnerability-scan', bomb, { 'content-encoding': 'gzip' }), 413, 'payload_too_large');
  });

  it('answers 415 for an unknown content encoding', async () => {
    expectError(await postJson('/v2/vulnerability-scan', sbom, { 'content-encoding': 'compress' }), 415);
  });
});

describe('bodies are read only for an authenticated caller of an operation that takes one', () => {
  // 20 MB of broken JSON, within the inventory limit: reading it before knowing who sends it was free work
  // for anyone (about 600 ms of parsing per request).
  const junk = Buffer.concat([Buffer.from('{"cluster_name":"x","inventory_time":"'), Buffer.alloc(20 * 1024 * 1024, 0x61)]);

  it('answers 401 to an anonymous inventory report without parsing its body', async () => {
    const res = await raw(server.url, 'POST', '/v2/kubernetes-inventory', { auth: null, headers: { 'content-type': 'application/json' }, body: junk });
    expectError(res, 401, 'unauthorized');
  });

  it('answers 404 to a body sent where no operation is, and ignores a body an operation does not take', async () => {
    expectError(await raw(server.url, 'PUT', '/v2/no-such-operation', { headers: { 'content-type': 'application/json; charset=bogus' }, body: '{' }), 404, 'not_found');
    // DELETE takes no body: the stray one (in a charset no parser knows) is not read, and the operation answers.
    const res = await raw(server.url, 'DELETE', '/v2/user/api-keys/no-such-key', { headers: { 'content-type': 'application/json; charset=bogus' }, body: '{' });
    expectError(res, 404, 'not_found');
  });

  it('still parses the body of an authenticated caller', async () => {
    expectError(await raw(server.url, 'POST', '/v2/kubernetes-inventory', { headers: { 'content-type': 'application/json' }, body: junk }), 400, 'validation_error');
  });
});

