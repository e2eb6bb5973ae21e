/**
 * Finding an image by what a person types (a digest, `name@digest` or a tag, with Docker Hub short names
 * normalised by the same parser the server uses) and waiting for its analysis.
 */
import type { VigilClient } from '../../generated/client.js';
import type { components } from '../../generated/openapi-types.js';
import { AppError } from '../errors.js';
import { fullTag, parseImageReference } from '../images/sources/references.js';
import { CliError, EXIT } from './exit-codes.js';
import type { Call, Session } from './session.js';

export type Image = components['schemas']['AnchoreImage'];

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The canonical full tag of a tag reference (`nginx` → `docker.io/library/nginx:latest`). */
export function canonicalTag(ref: string): string {
  try {
    return fullTag(parseImageReference(ref));
  } catch (err) {
    if (err instanceof AppError) throw new CliError(`error: ${err.message}`);
    throw err;
  }
}

export interface ResolvedImage {
  image: Image;
  /** The tag the reference named, if it named one. */
  tag?: string;
}

export async function resolveImage(client: VigilClient, call: Call, ref: string): Promise<ResolvedImage> {
  const digest = DIGEST.test(ref) ? ref : ref.includes('@') ? ref.slice(ref.indexOf('@') + 1) : undefined;
  if (digest) {
    const image = await call(client.GET('/images/{image_digest}', { params: { path: { image_digest: digest } } }));
    return { image };
  }
  const tag = canonicalTag(ref);
  const images = await call(client.GET('/images', { params: { query: { full_tag: tag } } }));
  const current = images.items.find((i) => i.image_detail.some((d) => d.full_tag === tag && d.current)) ?? images.items[0];
  if (!current) throw new CliError(`error: no image tagged ${tag} (add it with: vigil image add ${ref})`);
  return { image: current, tag };
}

/** The tag to evaluate policy for: the one named, else the image's current tag. */
export function evaluationTag(resolved: ResolvedImage, explicit?: string): string {
  if (explicit) return canonicalTag(explicit);
  if (resolved.tag) return resolved.tag;
  const tag = resolved.image.image_detail.find((d) => d.current)?.full_tag ?? resolved.image.image_detail[0]?.full_tag;
  if (!tag) throw new CliError(`error: image ${resolved.image.image_digest} has no tag: name one with --tag`);
  return tag;
}

const FINAL = new Set(['analyzed', 'analysis_failed']);

/** Bytes in binary units, one decimal: what a progress line shows. */
function size(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** How far a running analysis is, from the image record's analysis_progress: stage, layer, bytes read. */
function describeProgress(progress: NonNullable<Image['analysis_progress']>): string {
  const stage = progress.stage.replace('_', ' ');
  if (progress.layer_count === undefined) return stage;
  const bytes = progress.bytes_total ? `, ${size(progress.bytes_read ?? 0)} of ${size(progress.bytes_total)}` : '';
  return `${stage}, layer ${Math.max(1, progress.layer ?? 0)} of ${progress.layer_count}${bytes}`;
}

export function analysisState(image: Image): string {
  const last = image.analysis_status_detail.at(-1);
  const running = image.analysis_status === 'analyzing' && image.analysis_progress ? `: ${describeProgress(image.analysis_progress)}` : '';
  return `${image.image_digest}: ${image.analysis_status}${running}${last?.detail ? ` (${last.detail})` : ''}`;
}

/**
 * Polls the image until its analysis settles, showing each state; a timeout ends with exit code 3, a failed
 * analysis with 2 and the reason the server gave.
 */
export async function waitForAnalysis(session: Session, client: VigilClient, call: Call, first: Image, timeoutSeconds: number): Promise<Image> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const progress = session.progress();
  let image = first;
  for (;;) {
    progress.update(analysisState(image));
    if (FINAL.has(image.analysis_status)) break;
    if (Date.now() >= deadline) {
      progress.done(`timed out after ${timeoutSeconds}s: ${analysisState(image)}`);
      throw new CliError(`error: analysis of ${image.image_digest} did not finish within ${timeoutSeconds}s`, EXIT.timeout);
    }
    await session.sleep(Math.min(session.pollIntervalMs, Math.max(0, deadline - Date.now())));
    image = await call(client.GET('/images/{image_digest}', { params: { path: { image_digest: image.image_digest } } }));
  }
  progress.done(analysisState(image));
  if (image.analysis_status === 'analysis_failed') {
    throw new CliError(`error: analysis of ${image.image_digest} failed: ${image.analysis_status_detail.at(-1)?.detail ?? 'no reason given'}`);
  }
  return image;
}
