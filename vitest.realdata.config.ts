import { defineConfig } from 'vitest/config';

// `npm run test:realdata`: checks against the real feed data in ../shared/data (OSV exports, KEV, Alpine secdb).
// Not part of `npm test`: the data is not in the repository; each test says so and skips when it is absent.
export default defineConfig({
  resolve: {
    alias: { graphql: 'graphql/index.js' },
  },
  test: {
    include: ['test/realdata/**/*.test.ts'],
    testTimeout: 5 * 60_000,
    hookTimeout: 5 * 60_000,
    pool: 'forks',
  },
});
