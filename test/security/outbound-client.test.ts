/**
 * The outbound client refuses internal addresses after name resolution and on every redirect hop, before any
 * socket exists (issue 14, item 3). Names are resolved by a fake resolver injected into the policy, so a name
 * can "resolve" to 169.254.169.254 or 10.1.2.3 without DNS; every connect of the process is watched
 * (test/support/connect-watch.ts), and a refused target must not even reach net.Socket#connect. Each caller —
 * registry client, feed download, notification POST — turns the refusal into its own neutral error.
 */
import http from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RegistryUnreachableError } from '../../src/images/sources/errors.js';
import { RegistryClient } from '../../src/images/sources/registry.js';
import { OutboundError } from '../../src/outbound/errors.js';
import { request } from '../../src/outbound/http.js';
import { OutboundPolicy, type LookupAllFn } from '../../src/outbound/policy.js';
import { postJson } from '../../src/outbound/post-json.js';
import { FeedFetchError } from '../../src/vulns/sources/errors.js';
import { fetchFeedSource } from '../../src/vulns/sources/fetch.js';
import { watchConnects, type ConnectWatch } from '../support/connect-watch.js';
import { closeServer, listenOnLoopback } from '../support/receivers.js';

const NEUTRAL = 'the address is not allowed or did not answer';

/** What the fake resolver answers; anything else does not resolve. */
const ZONE: Record<string, string[]> = {
  'metadata.example': ['169.254.169.254'],
  'metadata-mapped.example': ['::ffff:169.254.169.254'],
  'internal.example': ['10.1.2.3'],
  'internal-mapped.example': ['::ffff:a00:1'],
  'loopback.example': ['127.0.0.1'],
  'loopback-v6.example': ['::1'],
  // a name with one internal and one loopback address: neither may be used
  'mixed.example': ['10.0.0.1', '127.0.0.2'],
  // the test's own redirector, allowed by name below
  'redirector.example': ['127.0.0.1'],
};
const lookup = vi.fn<LookupAllFn>(async (name) => {
  const addresses = ZONE[name];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
});
/** Only the redirector is allowed (by name): everything else internal is refused. */
const policy = OutboundPolicy.parse('redirector.example', { lookup });

const REFUSED_NAMES = ['metadata.example', 'metadata-mapped.example', 'internal.example', 'internal-mapped.example', 'loopback.example', 'loopback-v6.example', 'mixed.example'];
const REFUSED_LITERALS = [
  '127.0.0.1',
  '127.9.9.9',
  '[::1]',
  '169.254.169.254',
  '10.1.2.3',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::ffff:169.254.169.254]',
  '2130706433',
  '0x7f.1',
  '017700000001',
];

let watch: ConnectWatch;
let redirector: http.Server;
let redirectorPort: number;
let feedDir: string;

beforeAll(async () => {
  watch = watchConnects({ loopbackNames: ['redirector.example'] }); // the fake resolver's 127.0.0.1
  // /to/<url-encoded location>: a redirect there
  redirector = http.createServer((req, res) => {
    const to = /^\/to\/(.+)$/.exec(req.url ?? '')?.[1];
    if (to) res.writeHead(302, { location: decodeURIComponent(to) }).end();
    else res.writeHead(404).end();
  });
  redirectorPort = Number(new URL(await listenOnLoopback(redirector)).port);
  feedDir = await mkdtemp(join(tmpdir(), 'vigil-outbound-security-'));
});

afterAll(async () => {
  await closeServer(redirector);
  await rm(feedDir, { recursive: true, force: true });
  watch.restore();
});

afterEach(() => {
  // Only the redirector was ever connected to; refused targets never got as far as net.Socket#connect.
  const others = watch.attempts.filter((a) => !(a.host === 'redirector.example' && a.port === redirectorPort));
  watch.attempts.length = 0;
  expect(others).toEqual([]);
});

const via = (target: string) => `http://redirector.example:${redirectorPort}/to/${encodeURIComponent(target)}`;

async function refusal(promise: Promise<unknown>): Promise<OutboundError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundError);
  return err as OutboundError;
}

describe('the outbound client', () => {
  it.each(REFUSED_NAMES)('refuses %s after resolving it, before any socket', async (name) => {
    lookup.mockClear();
    const err = await refusal(request(`http://${name}/latest/meta-data/`, { policy, verifyTls: true, headTimeoutMs: 2000, redirects: { follow: 'none' } }));
    expect(err).toMatchObject({ reason: 'unreachable', message: `cannot reach ${name}: ${NEUTRAL}` });
    expect(err.detail).toMatch(/is a (link-local|private|loopback) address and not in the allow-list/);
    expect(lookup).toHaveBeenCalledWith(name, { all: true });
  });

  it.each(REFUSED_LITERALS)('refuses the literal %s without resolving or connecting', async (host) => {
    lookup.mockClear();
    const err = await refusal(request(`https://${host}:8443/`, { policy, verifyTls: true, headTimeoutMs: 2000, redirects: { follow: 'none' } }));
    expect(err.reason).toBe('unreachable');
    expect(err.message).toMatch(new RegExp(`^cannot reach \\S+:8443: ${NEUTRAL}$`));
    expect(lookup).not.toHaveBeenCalled();
  });

  it.each([...REFUSED_NAMES.map((n) => `http://${n}/`), ...REFUSED_LITERALS.map((h) => `http://${h}/`)])('refuses a redirect to %s', async (target) => {
    const err = await refusal(request(via(target), { policy, verifyTls: true, headTimeoutMs: 2000, redirects: { follow: 'any', max: 5 } }));
    expect(err.reason).toBe('unreachable');
    expect(err.message).toMatch(new RegExp(`^cannot reach \\S+: ${NEUTRAL}$`));
    expect(err.message).not.toContain('redirector');
  });
});

describe('its callers, each with its own neutral error', () => {
  it('registry client: a registry name resolving to the metadata address', async () => {
    const direct = await new RegistryClient('metadata.example', { policy }).resolve('x/app', '1').catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(RegistryUnreachableError);
    expect((direct as Error).message).toBe(`cannot reach registry metadata.example: ${NEUTRAL}`);
  });

  it('feed download: directly, and through a redirect', async () => {
    for (const url of ['http://internal.example/kev.json', via('http://metadata.example/latest/meta-data/')]) {
      const err = await fetchFeedSource(url, { policy, destDir: feedDir, maxBytes: 1000, timeoutMs: 2000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FeedFetchError);
      expect((err as FeedFetchError).message).toMatch(new RegExp(`^cannot download http://\\S+: ${NEUTRAL}$`));
      expect((err as FeedFetchError).causeCode).toBeUndefined();
    }
    expect(await readdir(feedDir)).toEqual([]);
    expect(watch.attempts.filter((a) => a.host === 'redirector.example')).toHaveLength(1); // the redirect was followed
  });

  it('notification POST (redirects are not followed at all)', async () => {
    const options = { policy, timeoutMs: 2000, verifyTls: true, maxResponseBytes: 1024, userAgent: 'test' };
    const err = await refusal(postJson('http://metadata.example/hook', '{}', {}, options));
    expect(err).toMatchObject({ reason: 'unreachable', message: `cannot reach metadata.example: ${NEUTRAL}` });
    expect((await refusal(postJson(via('http://metadata.example/hook'), '{}', {}, options))).reason).toBe('redirect');
  });
});
