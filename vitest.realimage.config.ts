import { defineConfig } from 'vitest/config';

// `npm run test:realimage`: tests against real Debian images built with mmdebstrap (root, apt mirror, minutes).
// Not part of `npm test`; the test files skip themselves unless VIGIL_REALIMAGE is set, which this config does.
export default defineConfig({
  resolve: {
    alias: { graphql: 'graphql/index.js' },
  },
  test: {
    include: ['test/realimage/**/*.test.ts'],
    env: { VIGIL_REALIMAGE: '1' },
    testTimeout: 10 * 60_000,
    hookTimeout: 15 * 60_000,
    pool: 'forks',
    // Progress lines (mmdebstrap, gzip, push, analysis) as they happen.
    silent: false,
    reporters: ['verbose'],
  },
});
