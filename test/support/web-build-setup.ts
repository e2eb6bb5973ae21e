/**
 * Vitest global setup: builds the web interface (dist/web) when web/ changed since its last build, so the
 * browser tests and the /ui/ serving tests run against the current code. Up to date, it only compares mtimes.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale, WEB_BUILD } from '../../scripts/build-if-stale.js';

export default function setup(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  if (!buildIfStale(root, WEB_BUILD)) throw new Error('npm run build:web failed; the web interface tests need dist/web');
}
