import { availableParallelism } from 'node:os';
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
    // Generous: with a file per core, tests that start servers or child processes share the CPU with another file,
    // and CI's two cores are slower than a workstation's. A hung test still fails, only later.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One test file per core. Vitest's default leaves a core free (one file at a time on CI's two), but most files
    // spend their time waiting on servers, child processes and the database: two files on two cores took the
    // SQLite run from 678 s to 481 s.
    maxWorkers: availableParallelism(),
    // The web interface's tests serve dist/web: build it first when web/ changed.
    globalSetup: ['test/support/web-build-setup.ts'],
  },
});
