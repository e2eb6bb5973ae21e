/**
 * Outbound requests must not make Vigil a port scanner or a window onto internal services (issue 14, item 3).
 * Registry validation (POST /v2/registries?validate=true), adding images (POST /v2/images), watching
 * repositories (POST /v2/repositories), tag watches and feed downloads refuse loopback, private and link-local
 * addresses in every spelling the URL parser accepts (decimal, hex and octal IPv4, IPv4-mapped IPv6), directly
 * and as redirect or token-realm targets, before connecting; and a refused address, a closed port and an open
 * one give the caller the same answer. The precise reason is in the server log only.
 *
 * The server allows the name `localhost` only: the test's "attacker" servers (a redirector, and a closed port)
 * are reached by that name, while the same loopback ports by address are refused. Every connect of the process
 * is watched (test/support/connect-watch.ts): a refused target must see no connect attempt at all, and a
 * connect off loopback is stopped before anything is sent, whatever the code under test does.
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollWatches } from '../../src/images/watch.js';
import { watchConnects, type ConnectWatch } from '../support/connect-watch.js';
import { client, json, raw, type RawResponse } from '../support/http.js';
import { closeServer, listenOnLoopback } from '../support/receivers.js';
import { freePort } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NEUTRAL = 'the address is not allowed or did not answer';

let watch: ConnectWatch;
let server: TestServer;
let logLines: string[];
// Ports are chosen now: the test names are made before beforeAll runs.
/** Answers like a registry that wants credentials, and serves a feed: what an internal service would do. */
let open: http.Server;
const openPort = await freePort();
/** Reached as localhost: redirects registry requests to `redirectTo`, or challenges with a token realm there. */
let redirector: http.Server;
const redirectorPort = await freePort();
let redirectTo = '';
let realmAt: string | null = null;
/** Nothing listens here, on a name the policy allows. */
const closedPort = await freePort();

/** Every spelling of a refused registry host; the forms in brackets are not accepted by POST /v2/registries. */
const refusedHosts = () => [
  `127.0.0.1:${openPort}`,
  `127.1.2.3:${openPort}`,
  `2130706433:${openPort}`,
  `0x7f.1:${openPort}`,
  `017700000001:${openPort}`,
  '169.254.169.254:80',
  '10.1.2.3:5000',
];
const refusedBracketedHosts = () => [`[::1]:${openPort}`, `[::ffff:127.0.0.1]:${openPort}`, `[::ffff:7f00:1]:${openPort}`, '[::ffff:169.254.169.254]:80', '[::ffff:a00:1]:5000'];
/** Where the redirector sends registry requests and token fetches. */
const refusedUrls = () => [
  `http://127.0.0.1:${openPort}/v2/`,
  `http://[::1]:${openPort}/v2/`,
  `http://2130706433:${openPort}/v2/`,
  `http://0x7f.1:${openPort}/v2/`,
  `http://017700000001:${openPort}/v2/`,
  `http://[::ffff:7f00:1]:${openPort}/v2/`,
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:169.254.169.254]/latest/meta-data/',
  'http://10.1.2.3:5000/v2/',
];

function feedSources(): Record<string, string> {
  const kev = (host: string) => `http://${host}/kev.json`;
  return {
    loopback: kev(`127.0.0.1:${openPort}`),
    'loopback-other': kev(`127.1.2.3:${openPort}`),
    'loopback-v6': kev(`[::1]:${openPort}`),
    decimal: kev(`2130706433:${openPort}`),
    hex: kev(`0x7f.1:${openPort}`),
    octal: kev(`017700000001:${openPort}`),
    mapped: kev(`[::ffff:127.0.0.1]:${openPort}`),
    'mapped-hex': kev(`[::ffff:7f00:1]:${openPort}`),
    metadata: 'http://169.254.169.254/latest/meta-data/',
    'metadata-mapped': 'http://[::ffff:169.254.169.254]/latest/meta-data/',
    private: kev('10.1.2.3'),
    'redirect-loopback': `http://localhost:${redirectorPort}/feed/loopback`,
    'redirect-metadata': `http://localhost:${redirectorPort}/feed/metadata`,
    'redirect-private': `http://localhost:${redirectorPort}/feed/private`,
    'redirect-mapped': `http://localhost:${redirectorPort}/feed/mapped`,
    // allowed by name, nothing listening: must read exactly like the refusals
    closed: kev(`localhost:${closedPort}`),
  };
}

const FEED_REDIRECTS: Record<string, () => string> = {
  loopback: () => `http://127.0.0.1:${openPort}/kev.json`,
  metadata: () => 'http://169.254.169.254/latest/meta-data/',
  private: () => 'http://10.1.2.3/kev.json',
  mapped: () => `http://[::ffff:127.0.0.1]:${openPort}/kev.json`,
};

beforeAll(async () => {
  watch = watchConnects(); // before anything can connect
  open = http.createServer((req, res) => {
    if (req.url?.startsWith('/v2/')) res.writeHead(401, { 'www-authenticate': 'Basic realm="internal"' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"title":"internal","vulnerabilities":[]}');
  });
  await listenOnLoopback(open, openPort);
  redirector = http.createServer((req, res) => {
    const feed = /^\/feed\/(\w+)$/.exec(req.url ?? '')?.[1];
    if (feed) return void res.writeHead(302, { location: FEED_REDIRECTS[feed]!() }).end();
    if (realmAt !== null) return void res.writeHead(401, { 'www-authenticate': `Bearer realm="${realmAt}",service="internal"` }).end();
    res.writeHead(307, { location: redirectTo }).end();
  });
  await listenOnLoopback(redirector, redirectorPort);
  logLines = [];
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const sources = Object.entries(feedSources()).map(([name, url]) => `${name}=${url}`);
  server = await startTestServer(
    { VIGIL_OUTBOUND_ALLOW: 'localhost', VIGIL_FEED_SOURCES: sources.join(','), VIGIL_FEED_SYNC_ON_START: 'false', VIGIL_WATCH_INTERVAL_SECONDS: '0' },
    { logs },
  );
});

afterAll(async () => {
  await server?.close();
  await Promise.all([open && closeServer(open), redirector && closeServer(redirector)]);
  watch?.restore();
});

afterEach(() => {
  // A refused target is never connected to: nothing reached the open port or went elsewhere than the test's own
  // servers (the Vigil server and the database on 127.0.0.1, the redirector and the closed port as localhost).
  const refusedTargets = watch.attempts.filter((a) => a.port === openPort || !/^(localhost|127\.0\.0\.1)$/.test(a.host));
  watch.attempts.length = 0;
  expect(refusedTargets).toEqual([]);
});

/** One answer for every kind of "no answer": status, type, message and detail alike, no reason, no address. */
function expectUnreachable(res: RawResponse, target: string | RegExp): void {
  expect(res.status, res.text).toBe(502);
  expect(res.json.error_type).toBe('registry_unreachable');
  if (typeof target === 'string') expect(res.json.message).toBe(`cannot reach ${target}: ${NEUTRAL}`);
  else expect(res.json.message).toMatch(target);
  expect(Object.keys(res.json.detail).filter((k) => !['registry', 'repository', 'request_id'].includes(k))).toEqual([]);
}

const addImage = (pull: string) => json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: pull } } });
const validateRegistry = (registry: string) =>
  json(server.url, 'POST', '/v2/registries?validate=true', { registry, registry_user: 'u', registry_pass: 'p', registry_verify: false });
const watchRepository = (repository: string) => raw(server.url, 'POST', `/v2/repositories?repository=${encodeURIComponent(repository)}`);

describe('registry hosts on internal addresses are refused before connecting, with the answer of a closed port', () => {
  it.each([...refusedHosts(), ...refusedBracketedHosts()].map((h) => [h]))('POST /v2/images from %s', async (host) => {
    expectUnreachable(await addImage(`${host}/x/app:1`), `registry ${host}`);
  });

  it.each(refusedHosts().map((h) => [h]))('POST /v2/registries?validate=true for %s', async (host) => {
    expectUnreachable(await validateRegistry(host), `registry ${host}`);
    expect((await raw(server.url, 'GET', '/v2/registries')).json).toEqual([]);
  });

  it.each([...refusedHosts(), ...refusedBracketedHosts()].map((h) => [h]))('POST /v2/repositories on %s', async (host) => {
    expectUnreachable(await watchRepository(`${host}/x/app`), `registry ${host}`);
  });

  it('a closed port on an allowed host answers exactly the same', async () => {
    const host = `localhost:${closedPort}`;
    expectUnreachable(await addImage(`${host}/x/app:1`), `registry ${host}`);
    expectUnreachable(await validateRegistry(host), `registry ${host}`);
    expectUnreachable(await watchRepository(`${host}/x/app`), `registry ${host}`);
  });

  it('tag watches: refused alike, and the recorded event says no more', async () => {
    const keys = [`127.0.0.1:${openPort}/x/watched:1`, '169.254.169.254:80/x/watched:1', `[::ffff:7f00:1]:${openPort}/x/watched:1`, '10.1.2.3:5000/x/watched:1'];
    for (const key of keys) {
      const created = await client(server.url).POST('/subscriptions', { body: { subscription_key: key, subscription_type: 'tag_update' } });
      expect(created.response.status).toBe(200);
    }
    const summary = await pollWatches(server.running.services, 0);
    expect(summary).toMatchObject({ tagsChecked: keys.length, failures: keys.length, imagesAdded: [] });
    const events = await client(server.url).GET('/events', { params: { query: { event_type: 'system.image_analysis.registry_lookup_failed', limit: 1000 } } });
    for (const key of keys) {
      const registry = key.slice(0, key.indexOf('/'));
      const messages = events.data!.results!.filter((e) => e.event.resource.id === key).map((e) => e.event.message);
      expect(messages.length).toBeGreaterThan(0);
      for (const message of messages) expect(message).toBe(`Looking up ${key} failed: cannot reach registry ${registry}: ${NEUTRAL}`);
    }
  });
});

describe('redirects and token realms pointing at internal addresses are refused before connecting', () => {
  const forRegistry = () => new RegExp(`^cannot reach \\S+ \\(for registry localhost:${redirectorPort}\\): ${NEUTRAL}$`);

  it.each(refusedUrls().map((u) => [u]))('a registry redirect to %s', async (url) => {
    redirectTo = url;
    realmAt = null;
    expectUnreachable(await addImage(`localhost:${redirectorPort}/x/app:1`), forRegistry());
    expectUnreachable(await watchRepository(`localhost:${redirectorPort}/x/app`), forRegistry());
  });

  it.each(refusedUrls().map((u) => [u]))('a token realm at %s', async (url) => {
    realmAt = url;
    try {
      expectUnreachable(await addImage(`localhost:${redirectorPort}/x/app:1`), forRegistry());
      expectUnreachable(await validateRegistry(`localhost:${redirectorPort}`), forRegistry());
    } finally {
      realmAt = null;
    }
  });
});

describe('feed downloads', () => {
  it('refuses every internal address, directly or by redirect, with the answer of a closed port', async () => {
    const res = await raw(server.url, 'POST', '/v2/system/feeds?wait=true');
    expect(res.status, res.text).toBe(200);
    const outcomes = new Map((res.json.feeds as { feed: string; status: string; error?: string }[]).map((o) => [o.feed, o]));
    for (const [name, url] of Object.entries(feedSources())) {
      const shown = new URL(url);
      expect(outcomes.get(name), name).toEqual({ feed: name, status: 'failed', error: `cannot download ${shown.protocol}//${shown.host}${shown.pathname}: ${NEUTRAL}` });
    }
    // the redirects were followed: the redirector was asked once per redirecting feed (and nothing else was reached)
    expect(watch.attempts.filter((a) => a.port === redirectorPort).length).toBeGreaterThanOrEqual(1);
  });
});

describe('the server log', () => {
  it('has the precise reasons the answers leave out', () => {
    const refusals = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.msg === 'outbound request refused or unanswered');
    const reasons = (purpose: string) => refusals.filter((l) => l.purpose === purpose).map((l) => String(l.reason));
    expect(reasons('registry')).toEqual(expect.arrayContaining([expect.stringMatching(/169\.254\.169\.254 is a link-local address/), expect.stringMatching(/10\.1\.2\.3 is a private address/), 'ECONNREFUSED']));
    expect(reasons('feeds')).toEqual(expect.arrayContaining([expect.stringMatching(/127\.0\.0\.1 is a loopback address/), 'ECONNREFUSED']));
  });
});
