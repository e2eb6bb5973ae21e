/**
 * How far a running analysis is, kept on the image row (`images.analysis_progress`) so that every node, the API's
 * image record and the CLI's `--wait` can show it: the stage, the layer being read and the layer blob bytes read
 * (as stored, compressed or not, against the sizes the manifest gives). Blob reads report every chunk; the row is
 * written at most every PROGRESS_INTERVAL_MS, and at once when the stage or the layer changes. A write never
 * fails the analysis, and one that arrives after the analysis ended changes nothing (recordAnalysisProgress only
 * touches an image that is still analyzing; every status change clears the column).
 */
import type { Logger } from 'pino';
import type { Db } from '../db/index.js';
import { nowIso } from '../util/time.js';
import type { WalkProgress } from './layers/index.js';
import { recordAnalysisProgress } from './store.js';

export type AnalysisStage = 'fetching' | 'reading_layers' | 'cataloging' | 'saving';

/** As the API shows it (AnchoreImage.analysis_progress). */
export interface AnalysisProgress {
  stage: AnalysisStage;
  /** The layer being read, from 1 (reading_layers and after). */
  layer?: number;
  layer_count?: number;
  bytes_read?: number;
  bytes_total?: number;
  updated_at: string;
}

export const PROGRESS_INTERVAL_MS = 1000;

export class AnalysisProgressReporter {
  private current: Omit<AnalysisProgress, 'updated_at'> = { stage: 'fetching' };
  private lastWrite = 0;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly accountName: string,
    private readonly digest: string,
    private readonly log: Logger,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  /** A new stage; `totals` when reading layers starts (the layer count and their blob sizes). */
  stage(stage: AnalysisStage, totals?: { layerCount: number; bytesTotal: number }): void {
    this.current = {
      ...this.current,
      stage,
      ...(totals ? { layer: 0, layer_count: totals.layerCount, bytes_read: 0, bytes_total: totals.bytesTotal } : {}),
    };
    this.write();
  }

  /** The walker's progress (walkLayers' onProgress). */
  readonly layers = (p: WalkProgress): void => {
    const newLayer = p.layer !== this.current.layer;
    this.current = { ...this.current, stage: 'reading_layers', layer: p.layer, bytes_read: p.blobBytes };
    if (newLayer || Date.now() - this.lastWrite >= this.intervalMs) this.write();
  };

  /** Waits for the writes issued so far. */
  settle(): Promise<void> {
    return this.writing;
  }

  private write(): void {
    this.lastWrite = Date.now();
    const snapshot = JSON.stringify({ ...this.current, updated_at: nowIso() } satisfies AnalysisProgress);
    // One write at a time, in order; a failure is logged and the analysis goes on.
    this.writing = this.writing
      .then(() => recordAnalysisProgress(this.db, this.accountName, this.digest, snapshot))
      .catch((err: unknown) => this.log.warn({ err }, 'recording the analysis progress failed'));
  }
}
