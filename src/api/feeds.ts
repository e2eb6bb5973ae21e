/** Handlers of the System tag's feed operations: listing, syncing, enabling, deleting and uploading feeds. */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { InvalidError } from '../errors.js';
import type { RequestContext } from '../server/context.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { deleteFeed, deleteGroup, getFeedDataRecord, listFeeds, setFeedEnabled, setGroupEnabled, storeFeedUpload } from '../vulns/feed-admin.js';
import { requestFeedSync, type FeedSyncSummary } from '../vulns/feeds.js';

type FeedOps =
  | 'get_system_feeds'
  | 'post_system_feeds'
  | 'get_system_feed'
  | 'upload_system_feed'
  | 'toggle_feed_enabled'
  | 'delete_feed'
  | 'toggle_group_enabled'
  | 'delete_feed_group';

/** The one file part of a multipart body, streamed; other parts are drained and ignored. */
function multipartFile(req: Readable & { headers: Record<string, string | string[] | undefined> }): Promise<{ stream: Readable; fileName?: string }> {
  return new Promise((resolve, reject) => {
    let found = false;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers as Record<string, string>, limits: { files: 1 } });
    } catch (err) {
      return reject(new InvalidError(`the multipart body could not be read: ${(err as Error).message}`));
    }
    parser.on('file', (_field, stream, info) => {
      found = true;
      resolve({ stream, fileName: info.filename });
    });
    parser.on('error', (err) => reject(new InvalidError(`the multipart body could not be read: ${(err as Error).message}`)));
    parser.on('close', () => {
      if (!found) reject(new InvalidError('the multipart body has no file part'));
    });
    req.pipe(parser);
  });
}

function summaryBody(summary: FeedSyncSummary) {
  const { rematch } = summary;
  return {
    feeds: summary.feeds.map((f) => ({ ...f, ...('stats' in f ? { stats: f.stats as Record<string, unknown> } : {}) })),
    rematch: {
      images: rematch.images,
      changed_images: rematch.changedImages,
      sources: rematch.sources,
      changed_sources: rematch.changedSources,
      added: rematch.added,
      updated: rematch.updated,
      removed: rematch.removed,
    },
  };
}

async function waitForSync(ctx: RequestContext, jobId: number, timeoutSeconds: number) {
  const { worker, jobs, feedProgress } = ctx.services;
  const finished = worker.waitFor(jobId);
  const current = await jobs.get(jobId);
  if (current && current.status !== 'done' && current.status !== 'failed') {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutSeconds * 1000)));
    await Promise.race([finished, timeout]);
    clearTimeout(timer);
  }
  const job = await jobs.get(jobId);
  const status = (job?.status ?? 'queued') as 'queued' | 'running' | 'done' | 'failed';
  const result = feedProgress.lastResult?.jobId === jobId ? summaryBody(feedProgress.lastResult.summary) : {};
  return { job_id: jobId, status, ...result };
}

export const feedHandlers: HandlerGroup<FeedOps> = {
  async get_system_feeds(ctx) {
    return { status: 200, body: await listFeeds(ctx.services) };
  },
  async post_system_feeds(ctx, { query }) {
    const jobId = await requestFeedSync(ctx.services, { trigger: 'api', force: query.force_sync ?? false });
    if (!query.wait) return { status: 200, body: { job_id: jobId, status: 'queued' as const } };
    return { status: 200, body: await waitForSync(ctx, jobId, query.timeout_seconds ?? 600) };
  },
  async get_system_feed(ctx, { params, query }) {
    return { status: 200, body: await getFeedDataRecord(ctx.services, params.feed, query.version) };
  },
  async upload_system_feed(ctx, { params, query }) {
    const req = ctx.bodyStream as (Readable & { headers: Record<string, string | string[] | undefined> }) | null;
    if (!req) throw new InvalidError('send the feed file as the request body or as a multipart/form-data file part');
    const multipart = String(req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
    const file = multipart ? await multipartFile(req) : { stream: req as Readable, fileName: undefined };
    await storeFeedUpload(ctx.services, params.feed, { version: query.version, built: query.built, checksum: query.checksum, body: file.stream, fileName: file.fileName });
    return { status: 202 };
  },
  async toggle_feed_enabled(ctx, { params, query }) {
    return { status: 200, body: await setFeedEnabled(ctx.services, params.feed, query.enabled) };
  },
  async delete_feed(ctx, { params }) {
    await deleteFeed(ctx.services, params.feed);
    return { status: 200 };
  },
  async toggle_group_enabled(ctx, { params, query }) {
    return { status: 200, body: await setGroupEnabled(ctx.services, params.feed, params.group, query.enabled) };
  },
  async delete_feed_group(ctx, { params }) {
    await deleteGroup(ctx.services, params.feed, params.group);
    return { status: 200 };
  },
};

