/**
 * Helpers for the registry, event and image-access tests: small distinct images, archive uploads (as any caller,
 * optionally naming another account with x-service-account), registry paths with the name encoded (prefix
 * entries contain a slash), and per-account row counts read straight from the database.
 */
import { expect } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { waitForAnalysis } from './analysis.js';
import { adminAuth, raw, type Auth, type RawResponse } from './http.js';
import { buildImage, dockerArchiveTar, type BuiltImage, type FileSpec } from './image-builder.js';
import type { TestServer } from './server.js';

export const SA = 'x-service-account';

const APK_DB = 'P:musl\nV:1.2.4-r4\nA:x86_64\nL:MIT\no:musl\n\nP:zlib\nV:1.3.1-r0\nA:x86_64\nL:Zlib\no:zlib\n\n';

/** An Alpine-like single-layer image with two apk packages; `marker` makes its digest unique. */
export function alpineImage(marker: string, extra: FileSpec[] = []): Promise<BuiltImage> {
  return buildImage({
    layers: [
      [
        { path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.1\n' },
        { path: 'lib/apk/db/installed', content: APK_DB },
        { path: 'marker', content: marker },
        ...extra,
      ],
    ],
  });
}

/** An image whose layer holds a path-traversal entry: its analysis fails. */
export function hostileImage(marker: string): Promise<BuiltImage> {
  return buildImage({ layers: [[{ path: 'marker', content: marker }, { path: '../../etc/evil', content: 'x' }]] });
}

/** POST /v2/images/archives with a `docker save` tarball of `image`, recorded under `tag`. */
export async function uploadArchive(
  url: string,
  image: BuiltImage,
  tag: string,
  options: { auth?: Auth; account?: string } = {},
): Promise<RawResponse> {
  const body = await dockerArchiveTar(image, { repoTags: [tag] });
  return raw(url, 'POST', '/v2/images/archives', {
    auth: options.auth ?? adminAuth,
    headers: { 'content-type': 'application/x-tar', ...(options.account ? { [SA]: options.account } : {}) },
    body,
  });
}

/** The path of one registry configuration; the name is encoded, as `host/prefix` names hold a slash. */
export function registryPath(name: string, query = ''): string {
  return `/v2/registries/${encodeURIComponent(name)}${query}`;
}

/** The response holds no password: neither the value nor a field that could carry one. */
export function expectNoPassword(res: RawResponse, ...passwords: string[]): void {
  for (const p of passwords) {
    expect(res.text).not.toContain(p);
    expect(res.text).not.toContain(Buffer.from(p).toString('base64'));
  }
  expect(res.text).not.toMatch(/registry_pass/);
}

/** Tables that hold an account's data, each with an account_name column. */
export const ACCOUNT_TABLES = [
  'images',
  'image_tags',
  'image_status_history',
  'image_packages',
  'image_documents',
  'image_file_chunks',
  'events',
  'registries',
  'subscriptions',
  'jobs',
] as const;

/** How many rows each table holds for the account. */
export async function rowCounts(db: Db, account: string, tables: readonly string[] = ACCOUNT_TABLES): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = await db(table).where({ account_name: account }).count({ n: '*' }).first();
    counts[table] = Number(row?.n ?? 0);
  }
  return counts;
}

/**
 * Resolves once none of the account's jobs is queued or running. waitForAnalysis settles on the image status,
 * which an analysis sets just before recording its last event; tests that count events wait for this too.
 */
export async function waitForJobsSettled(server: TestServer, account: string): Promise<void> {
  return settledWhenNoneOf(server, { account_name: account });
}

/** Resolves once no job of this kind (of any account or none) is queued or running. */
export async function waitForJobKindSettled(server: TestServer, kind: string): Promise<void> {
  return settledWhenNoneOf(server, { kind });
}

/** Resolves once no job with these column values is queued or running, checked again after each finished job. */
function settledWhenNoneOf(server: TestServer, where: Record<string, string>): Promise<void> {
  const { worker, db } = server.running.services;
  const pending = async () =>
    Number((await db('jobs').where(where).whereIn('status', ['queued', 'running']).count({ n: '*' }).first())?.n ?? 0);
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err?: unknown) => {
      done = true;
      worker.off('finished', onFinished);
      if (err) reject(err);
      else resolve();
    };
    const check = async () => {
      try {
        if (!done && (await pending()) === 0) finish();
      } catch (err) {
        if (!done) finish(err);
      }
    };
    const onFinished = () => void check();
    worker.on('finished', onFinished);
    void check();
  });
}

/** The final analysis status of the image, once its job (and every other job of the account) has settled. */
export async function analysisSettled(server: TestServer, account: string, digest: string): Promise<string> {
  const status = await waitForAnalysis(server, account, digest);
  await waitForJobsSettled(server, account);
  return status;
}
