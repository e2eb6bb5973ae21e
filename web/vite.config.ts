/**
 * Builds the web interface into dist/web, served by Vigil at /ui/ (src/server/web-ui.ts). Run from the repository
 * root (`npm run build:web`): the paths below are relative to it.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web',
  base: '/ui/',
  plugins: [react()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // Source maps stay out of the served bundle; the budget in docs/benchmarks.md counts what browsers load.
    sourcemap: false,
    chunkSizeWarningLimit: 2048,
  },
});
