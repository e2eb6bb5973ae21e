import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql must resolve to one module instance under vitest
    alias: { graphql: 'graphql/index.js' },
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/realdata/**', 'test/realimage/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
