/** Helpers for tests that add images and wait for their analysis (by awaiting worker events, never sleeping). */
import type { JobFinished } from '../../src/jobs/worker.js';
import { findImage } from '../../src/images/store.js';
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
