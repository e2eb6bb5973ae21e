/**
 * Analysis of one image, run as a job: open the image's source, walk its layers once (streaming), catalog
 * packages, detect the distro, and store everything in one transaction. Orchestration only: the work is done
 * by sources/, layers/ and catalogers/.
 *
 * Failure policy: a problem with the image itself (hostile or corrupt layers, unsupported media types, a
 * manifest that vanished) fails the analysis at once with a reason the user can act on; transient problems
 * (registry unreachable) are retried by the job queue, and the last attempt fails the analysis.
 */
import { rm } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/events.js';
import type { Job } from '../jobs/queue.js';
import type { JobContext } from '../jobs/worker.js';
import type { Services } from '../service.js';
import { refreshImageFindings } from '../vulns/findings.js';
import { ALL_CATALOGERS } from '../ecosystems/registry.js';
import { DISTRO_FILES, detectDistro } from '../ecosystems/distro.js';
import { guessDockerfile, historyOf } from './history.js';
import { LayerError, walkLayers } from './layers/index.js';
import type { FileRecord } from './model.js';
import { packageCountsByType, type Cataloger, type CatalogedPackage } from '../ecosystems/model.js';
import { assignOwners } from './ownership.js';
import { registryClientOptions } from './registry-credentials.js';
import { contentScanners, scanResults } from './scanners/index.js';
import { readImageArchive } from './sources/image-archive.js';
import { parseImageReference } from './sources/references.js';
import { resolveImageReference } from './sources/registry.js';
import type { ResolvedImage } from './sources/resolved-image.js';
import { parsePlatform } from './sources/platforms.js';
import { analyzeImport } from './analyze-import.js';
import { AnalysisProgressReporter } from './analysis-progress.js';
import { topChainId } from './ancestry-chain.js';
import { copyUploadToTempFile, deleteUpload } from '../uploads/stored-uploads.js';
import { findImage, saveAnalysis, transitionAnalysis, type ImageRecord, type ImageSourceRecord } from './store.js';
import { appendAll } from '../util/arrays.js';
import { defineJob } from '../jobs/definition.js';

export interface AnalyzeImagePayload {
  accountName: string;
  imageDigest: string;
}

export const ANALYZE_IMAGE_JOB = defineJob<AnalyzeImagePayload>({
  kind: 'analyze_image',
  role: 'analyzer',
  maxAttempts: 3,
  schema: {
    type: 'object',
    properties: { accountName: { type: 'string', minLength: 1 }, imageDigest: { type: 'string', pattern: '^sha256:[a-f0-9]{64}$' } },
    required: ['accountName', 'imageDigest'],
    additionalProperties: false,
  },
});

/** Captures the small files distro detection needs; survives the walk's per-path pruning via the final view. */
function distroFileCollector(captured: Map<string, Buffer>): Cataloger {
  const wanted = new Set(DISTRO_FILES);
  return {
    name: 'distro-files',
    maxFileBytes: 64 * 1024,
    matches: (path) => wanted.has(path),
    parse(path, content) {
      captured.set(path, Buffer.from(content));
      return [];
    },
  };
}

/**
 * An archive stored in the database, read through a node-local temporary copy (the tar reader seeks, which the
 * chunked rows cannot offer); the copy is removed when the image is closed.
 */
async function openUploadedArchive(services: Services, uploadId: string): Promise<ResolvedImage & { close(): Promise<void> }> {
  const copy = await copyUploadToTempFile(services.db, uploadId, 'archive');
  try {
    const image = await readImageArchive(copy.path);
    return {
      ...image,
      close: async () => {
        await image.close();
        await copy.remove();
      },
    };
  } catch (err) {
    await copy.remove();
    throw err;
  }
}

async function openSource(services: Services, image: ImageRecord, signal: AbortSignal): Promise<ResolvedImage & { close?(): Promise<void> }> {
  const source = JSON.parse(image.source) as ImageSourceRecord;
  if (source.kind === 'archive') return source.upload ? openUploadedArchive(services, source.upload) : readImageArchive(source.path!);
  const ref = parseImageReference(source.pull_string!);
  const connection = await registryClientOptions(services, image.account_name, ref.registry, ref.repository);
  return resolveImageReference(ref, {
    ...connection,
    platform: source.platform ? parsePlatform(source.platform) : undefined,
    signal,
  });
}

/** The walk's packages as stored, and the ownership step's time in milliseconds (ownership.ts#assignOwners). */
function finalizePackages(walk: Map<string, CatalogedPackage[]>, distro: ReturnType<typeof detectDistro>): { packages: CatalogedPackage[]; ownershipMs: number } {
  const all: CatalogedPackage[] = [];
  for (const cataloger of ALL_CATALOGERS) {
    const found = walk.get(cataloger.name) ?? [];
    appendAll(all, cataloger.finalize ? cataloger.finalize(found, distro) : found);
  }
  const { packages, ms } = assignOwners(all);
  return { packages, ownershipMs: ms };
}

/** A failure that retrying cannot fix: the image itself is the problem. */
function isPermanent(err: unknown): boolean {
  if (err instanceof LayerError) return !err.retryable; // a blob that could not be fetched may work next time
  if (err instanceof AppError) return err.status < 500;
  return false;
}

async function analyze(services: Services, image: ImageRecord, log: Logger, signal: AbortSignal): Promise<void> {
  const source = JSON.parse(image.source) as ImageSourceRecord;
  if (source.kind === 'import') return analyzeImport(services, image, source, log);
  const progress = new AnalysisProgressReporter(services.db, image.account_name, image.image_digest, log);
  progress.stage('fetching');
  try {
    await analyzeSource(services, image, log, signal, progress);
  } finally {
    await progress.settle();
  }
}

async function analyzeSource(services: Services, image: ImageRecord, log: Logger, signal: AbortSignal, progress: AnalysisProgressReporter): Promise<void> {
  const resolved = await openSource(services, image, signal);
  try {
    if (resolved.manifestDigest !== image.image_digest)
      throw new AppError(422, 'digest_changed', `the source now serves ${resolved.manifestDigest}, not ${image.image_digest}`);
    const captured = new Map<string, Buffer>();
    const scanWarnings: string[] = [];
    progress.stage('reading_layers', { layerCount: resolved.layers.length, bytesTotal: resolved.layers.reduce((n, l) => n + l.size, 0) });
    const walk = await walkLayers(resolved.layers, {
      catalogers: [...ALL_CATALOGERS, distroFileCollector(captured)],
      scanners: contentScanners(services.config.analysis.content, (message) => scanWarnings.push(message)),
      limits: { maxExpandedBytes: services.config.analysis.maxExpandedBytes, maxEntries: services.config.analysis.maxEntries },
      hashFiles: true,
      signal,
      onProgress: progress.layers,
    });
    progress.stage('cataloging');
    const surviving = new Map([...captured].filter(([path]) => walk.files.get(path)?.type === 'file'));
    const distro = detectDistro(surviving);
    const history = historyOf(resolved.config);
    const dockerfile = image.dockerfile ? Buffer.from(image.dockerfile, 'base64').toString('utf8') : guessDockerfile(history);
    const files: FileRecord[] = [...walk.files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
    const scans = scanResults(walk.scans);
    const warnings = [...walk.warnings, ...scanWarnings.slice(0, 100)];
    const { packages, ownershipMs } = finalizePackages(walk.packagesByCataloger, distro);
    progress.stage('saving');
    const saved = await saveAnalysis(services.db, image.account_name, image.image_digest, {
      imageId: resolved.configDigest,
      arch: resolved.platform.architecture,
      distro: distro?.name ?? null,
      distroVersion: distro?.version ?? null,
      distroLike: distro?.like ?? [],
      dockerfileMode: image.dockerfile ? 'Actual' : 'Guessed',
      imageSize: resolved.layers.reduce((n, l) => n + l.size, 0),
      layerCount: resolved.layers.length,
      chainId: topChainId(resolved.layers.map((l) => l.diffId)),
      packages,
      files,
      documents: {
        manifest: JSON.parse(resolved.manifestBytes.toString('utf8')),
        config: resolved.config,
        history,
        dockerfile,
        layers: resolved.layers.map((l) => ({ digest: l.digest, size: l.size, media_type: l.mediaType, diff_id: l.diffId })),
        warnings,
        retrieved_files: scans.retrievedFiles,
        secret_search: scans.secretSearch,
        content_search: scans.contentSearch,
      },
    }, {
      accountName: image.account_name,
      type: 'user.image.analysis.completed',
      resourceType: 'image_digest',
      resourceId: image.image_digest,
      // ownership_ms: what telling OS-installed language packages apart cost (npm run bench:analysis reports it).
      details: { layer_count: resolved.layers.length, warnings: warnings.slice(0, 20), ownership_ms: Math.round(ownershipMs * 10) / 10 },
    }, (trx) => refreshImageFindings(trx, image.account_name, image.image_digest).then(() => undefined));
    if (saved)
      log.info(
        { packages: packages.length, packages_by_type: packageCountsByType(packages), files: files.length, expanded_bytes: walk.expandedBytes },
        'analysis completed',
      );
  } finally {
    await resolved.close?.();
  }
}

/** An uploaded archive is kept only until its analysis has finished, one way or the other. */
async function releaseUpload(services: Services, image: ImageRecord): Promise<void> {
  const source = JSON.parse(image.source) as ImageSourceRecord;
  if (source.kind !== 'archive') return;
  if (source.upload) await deleteUpload(services.db, source.upload);
  else if (source.path) await rm(source.path, { force: true });
}

/** Analyzes the job's image; answers `analyzed` or `failed`, or nothing when there was nothing to do. */
export async function analyzeImageJob(services: Services, payload: AnalyzeImagePayload, job: Job, context: JobContext): Promise<{ outcome: 'analyzed' | 'failed' } | undefined> {
  const { accountName, imageDigest } = payload;
  const image = await findImage(services.db, accountName, imageDigest);
  if (!image || image.image_status !== 'active' || image.analysis_status === 'analyzed') return undefined; // deleted, or done already
  await runAnalysis(services, image, job, context);
  const after = await findImage(services.db, accountName, imageDigest);
  if (!after || after.analysis_status !== 'analyzing') await releaseUpload(services, image);
  return after?.analysis_status === 'analyzed' ? { outcome: 'analyzed' } : after?.analysis_status === 'analysis_failed' ? { outcome: 'failed' } : undefined;
}

async function runAnalysis(services: Services, image: ImageRecord, job: Job, context: JobContext): Promise<void> {
  const accountName = image.account_name;
  const imageDigest = image.image_digest;
  const started = await transitionAnalysis(services.db, accountName, imageDigest, ['not_analyzed', 'analysis_failed'], 'analyzing', null, {}, {
    accountName,
    type: 'user.image.analysis.started',
    resourceType: 'image_digest',
    resourceId: imageDigest,
  });
  // Still analyzing: a previous attempt was interrupted (restart or crash); say so in the history.
  if (!started) await transitionAnalysis(services.db, accountName, imageDigest, ['analyzing'], 'analyzing', `resumed after an interruption (attempt ${job.attempts})`);
  try {
    await analyze(services, { ...image, analysis_status: 'analyzing' }, context.log, context.signal);
  } catch (err) {
    if (context.signal.aborted) throw err; // shutting down: the job resumes at the next start
    const lastAttempt = job.attempts >= job.maxAttempts;
    if (!isPermanent(err) && !lastAttempt) throw err; // the queue retries with backoff
    const reason = err instanceof Error ? err.message : String(err);
    context.log.warn({ err }, 'analysis failed');
    await transitionAnalysis(services.db, accountName, imageDigest, ['analyzing'], 'analysis_failed', reason, {}, {
      accountName,
      type: 'user.image.analysis.failed',
      resourceType: 'image_digest',
      resourceId: imageDigest,
      message: `Image analysis failed: ${reason}`,
      details: { reason, error_type: err instanceof AppError ? err.errorType : err instanceof LayerError ? err.name : 'internal_error' },
    });
  }
}

// Re-exported for the documents API: stored documents are gzipped JSON.
export const decodeDocument = (content: Buffer) => JSON.parse(gunzipSync(content).toString('utf8'));

/** The job's attempts were used up by interruptions (see JobWorker): fail the analysis with a reason. */
export async function failInterruptedAnalysis(services: Services, payload: AnalyzeImagePayload, job: Job): Promise<void> {
  const reason = `analysis was interrupted ${job.maxAttempts} times without finishing (the service may have crashed or run out of memory on this image)`;
  const image = await findImage(services.db, payload.accountName, payload.imageDigest);
  if (image) await releaseUpload(services, image);
  await transitionAnalysis(services.db, payload.accountName, payload.imageDigest, ['analyzing', 'not_analyzed'], 'analysis_failed', reason, {}, {
    accountName: payload.accountName,
    type: 'user.image.analysis.failed',
    resourceType: 'image_digest',
    resourceId: payload.imageDigest,
    message: `Image analysis failed: ${reason}`,
    details: { reason, error_type: 'interrupted' },
  });
}
