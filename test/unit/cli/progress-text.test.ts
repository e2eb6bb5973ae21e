import { describe, expect, it } from 'vitest';
import type { components } from '../../../generated/openapi-types.js';
import { analysisState } from '../../../src/cli/images.js';
import { syncProgressText } from '../../../src/cli/commands/feeds.js';

type Image = components['schemas']['AnchoreImage'];
const DIGEST = `sha256:${'c'.repeat(64)}`;
const image = (over: Partial<Image>): Image => ({
  image_digest: DIGEST,
  account_name: 'admin',
  image_status: 'active',
  analysis_status: 'analyzing',
  analysis_status_detail: [],
  image_detail: [],
  created_at: '2026-11-26T08:00:00Z',
  last_updated: '2026-11-26T08:00:00Z',
  ...over,
});

describe('the analysis state a waiting CLI shows', () => {
  it('shows the stage, the layer and the bytes read while the analysis runs', () => {
    const progress = { stage: 'reading_layers' as const, layer: 2, layer_count: 3, bytes_read: 5 * 1024 * 1024, bytes_total: 12 * 1024 * 1024 + 512 * 1024, updated_at: '2026-11-26T08:00:01Z' };
    expect(analysisState(image({ analysis_progress: progress }))).toBe(`${DIGEST}: analyzing: reading layers, layer 2 of 3, 5.0 MiB of 12.5 MiB`);
    expect(analysisState(image({ analysis_progress: { stage: 'fetching', updated_at: '2026-11-26T08:00:01Z' } }))).toBe(`${DIGEST}: analyzing: fetching`);
  });

  it('shows the status and its reason once the analysis ended', () => {
    const failed = image({
      analysis_status: 'analysis_failed',
      analysis_status_detail: [{ from_status: 'analyzing', to_status: 'analysis_failed', timestamp: '2026-11-26T08:00:02Z', detail: 'layer 1 is corrupt', source: {} }],
    });
    expect(analysisState(failed)).toBe(`${DIGEST}: analysis_failed (layer 1 is corrupt)`);
  });
});

describe('the feed sync state a waiting CLI shows', () => {
  it('names the feed, its stage and the records so far', () => {
    expect(syncProgressText('osv-debian', { stage: 'importing', records: 12_000 })).toBe('osv-debian: importing, 12,000 records');
    expect(syncProgressText('kev', { stage: 'downloading' })).toBe('kev: downloading');
  });
});
