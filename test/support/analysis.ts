/** Helpers for tests that add images and wait for their analysis (by awaiting worker events, never sleeping). */
import type { JobFinished } from '../../src/jobs/worker.js';
import { findImage } from '../../src/images/store.js';
import { raw } from './http.js';
import { buildImage, dockerArchiveTar, type FileSpec } from './image-builder.js';
import type { TestServer } from './server.js';

const FINAL = new Set(['analyzed', 'analysis_failed']);

/** Resolves with the final analysis status of the image once its analysis job has settled. */
export async function waitForAnalysis(server: TestServer, accountName: string, digest: string): Promise<string> {
  const { worker, db } = server.running.services;
  const status = async () => (await findImage(db, accountName, digest))?.analysis_status;
  return new Promise((resolve, reject) => {
    let done = false;
    const check = async () => {
      try {
        const s = await status();
        if (!done && s && FINAL.has(s)) {
          done = true;
          worker.off('finished', onFinished);
          resolve(s);
        }
      } catch (err) {
        done = true;
        worker.off('finished', onFinished);
        reject(err);
      }
    };
    const onFinished = (f: JobFinished) => {
      if (f.kind === 'analyze_image') void check();
    };
    worker.on('finished', onFinished);
    void check();
  });
}

/** Uploads an image built from layers as a docker archive (as the admin) and resolves with its digest once analyzed. */
export async function analyzeArchiveImage(server: TestServer, layers: FileSpec[][], tag: string): Promise<string> {
  const image = await buildImage({ layers });
  const res = await raw(server.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: [tag] }),
  });
  if (res.status !== 200) throw new Error(`image archive upload answered ${res.status}: ${JSON.stringify(res.json)}`);
  const digest = res.json.image_digest as string;
  const status = await waitForAnalysis(server, 'admin', digest);
  if (status !== 'analyzed') throw new Error(`analysis of ${tag} ended ${status}`);
  return digest;
}

export interface FindingFields {
  vuln: string;
  package_name: string;
  package_type: string;
  package_path?: string;
}

/** Findings as sorted `<vuln> <type>:<package> <path>` lines, easy to compare whole. */
export const findingLines = (list: FindingFields[]): string[] =>
  list.map((v) => `${v.vuln} ${v.package_type}:${v.package_name} ${v.package_path ?? ''}`.trim()).sort();

/** The image's findings of every type (GET /v2/images/{digest}/vuln/all) as `findingLines`. */
export async function imageFindingLines(server: TestServer, digest: string): Promise<string[]> {
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/vuln/all`);
  if (res.status !== 200) throw new Error(`GET vuln/all answered ${res.status}`);
  return findingLines(res.json.vulnerabilities);
}

/** How many uploads (archives until analyzed, feed files) and chunks of them the database still keeps. */
export async function storedUploadCounts(server: TestServer): Promise<{ uploads: number; chunks: number }> {
  const { db } = server.running.services;
  const count = async (table: string) => Number((await db(table).count({ n: '*' }).first())?.n ?? 0);
  return { uploads: await count('stored_uploads'), chunks: await count('stored_upload_chunks') };
}
