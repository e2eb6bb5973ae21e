import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql must resolve to one module instance under vitest
    alias: { graphql: 'graphql/index.js' },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // *.pg.test.ts need a Postgres server (several nodes on one database): they run when VIGIL_TEST_DATABASE_URL
    // is set (npm run test:pg, CI's Postgres stage) and are left out of the SQLite run rather than skipped.
    exclude: ['test/realdata/**', 'test/realimage/**', 'node_modules/**', ...(process.env.VIGIL_TEST_DATABASE_URL ? [] : ['test/**/*.pg.test.ts'])],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The web interface's tests serve dist/web: build it first when web/ changed.
    globalSetup: ['test/support/web-build-setup.ts'],
  },
});
