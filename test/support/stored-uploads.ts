/** Helpers for tests of uploads stored in the database (test/api/shared-storage*.test.ts). */
import { existsSync, readdirSync } from 'node:fs';
import { expect } from 'vitest';
import { UPLOAD_CHUNK_BYTES } from '../../src/uploads/stored-uploads.js';
import { waitForAnalysis } from './analysis.js';
import { raw } from './http.js';
import { dockerArchiveTar } from './image-builder.js';
import { alpineImage } from './registry-fixtures.js';
import type { TestServer } from './server.js';

/**
 * Uploads an archive of more than two stored chunks (so reading it back crosses chunk boundaries) through
 * `receiver`, waits for `analyzer` to analyze it, and checks the large file came through whole.
 */
export async function uploadAndAnalyze(receiver: TestServer, analyzer: TestServer, marker: string): Promise<void> {
  const filler = Buffer.alloc(2 * UPLOAD_CHUNK_BYTES + 12345);
  for (let i = 0; i < filler.length; i += 4096) filler.writeUInt32BE(i, i);
  const image = await alpineImage(marker, [{ path: 'opt/filler.bin', content: filler }]);
  const res = await raw(receiver.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: [`example.com/${marker}/app:1`] }),
  });
  expect(res.status, res.text).toBe(200);
  expect(await waitForAnalysis(analyzer, 'admin', res.json.image_digest)).toBe('analyzed');
  const files = await raw(analyzer.url, 'GET', `/v2/images/${res.json.image_digest}/content/files`);
  expect(files.json.content.find((f: { filename: string }) => f.filename === '/opt/filler.bin')).toMatchObject({ size: filler.length });
}

/** Files a node wrote into its data dir, apart from the SQLite database and a generated key. */
export function dataDirFiles(server: TestServer): string[] {
  const dir = server.running.services.config.dataDir;
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => !/^vigil\.sqlite(-wal|-shm)?$|^encryption\.key$/.test(f));
}

