import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores on these machines: more workers only thrash the broker and the engine.
    maxWorkers: 2,
  },
});
