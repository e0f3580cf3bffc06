import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores on these machines: more workers only thrash the broker and the engine.
    maxWorkers: 2,
    // A Kafka broker for the tests (VERONIKAI_KAFKA_BROKERS, or a local one started in the background).
    globalSetup: ['test/setup/kafka.ts'],
    reporters: ['default', './test/setup/summary-reporter.ts'],
  },
});
