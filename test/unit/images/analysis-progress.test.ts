import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/index.js';
import { AnalysisProgressReporter } from '../../../src/images/analysis-progress.js';
import { transitionAnalysis } from '../../../src/images/store.js';
import { createTestDb } from '../../support/db.js';
import { insertImageRow } from '../../support/image-rows.js';

let db: Db;
let close: () => Promise<void>;
const DIGEST = `sha256:${'b'.repeat(64)}`;
const log = pino({ level: 'silent' });

const stored = async () => {
  const row = await db('images').where({ account_name: 'acme', image_digest: DIGEST }).first('analysis_progress');
  return row?.analysis_progress ? JSON.parse(row.analysis_progress) : null;
};

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  await insertImageRow(db, 'acme', DIGEST, 'analyzing');
});
afterAll(async () => close?.());

describe('analysis progress on the image row', () => {
  it('records the stage, then the layer and bytes read, writing a new layer at once and bytes at most once per interval', async () => {
    // An interval no test run reaches: only stage and layer changes write.
    const reporter = new AnalysisProgressReporter(db, 'acme', DIGEST, log, 3_600_000);
    reporter.stage('fetching');
    await reporter.settle();
    expect(await stored()).toMatchObject({ stage: 'fetching', updated_at: expect.any(String) });

    reporter.stage('reading_layers', { layerCount: 2, bytesTotal: 3000 });
    reporter.layers({ layer: 1, blobBytes: 0 });
    reporter.layers({ layer: 1, blobBytes: 1000 });
    await reporter.settle();
    expect(await stored()).toMatchObject({ stage: 'reading_layers', layer: 1, layer_count: 2, bytes_read: 0, bytes_total: 3000 });

    reporter.layers({ layer: 2, blobBytes: 2000 });
    reporter.layers({ layer: 2, blobBytes: 2500 });
    await reporter.settle();
    expect(await stored()).toMatchObject({ layer: 2, bytes_read: 2000 });

    reporter.stage('saving');
    await reporter.settle();
    expect(await stored()).toMatchObject({ stage: 'saving', layer: 2, layer_count: 2, bytes_read: 2500, bytes_total: 3000 });
  });

  it('writes bytes read within a layer once the interval has passed', async () => {
    const reporter = new AnalysisProgressReporter(db, 'acme', DIGEST, log, 0);
    reporter.layers({ layer: 2, blobBytes: 2900 });
    await reporter.settle();
    expect(await stored()).toMatchObject({ layer: 2, bytes_read: 2900 });
  });

  it('is cleared by the next status change, and a late write after it changes nothing', async () => {
    const reporter = new AnalysisProgressReporter(db, 'acme', DIGEST, log, 0);
    expect(await transitionAnalysis(db, 'acme', DIGEST, ['analyzing'], 'analysis_failed', 'test')).toBe(true);
    expect(await stored()).toBeNull();
    reporter.stage('saving');
    await reporter.settle();
    expect(await stored()).toBeNull();
  });
});
