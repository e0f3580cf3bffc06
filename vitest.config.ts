import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The `unit` projects: pure logic, quick to run alone (`npx vitest run --project 'unit*'`). No
 * embedded engine, no Kafka, no CLI or reference tool (Python SDK, skills-ref, conformance CLI)
 * spawned; test/setup/unit-guard.ts makes the engine, a Kafka connection, and spawning the CLI,
 * Java or a ClickHouse server fail there.
 * Whole directories where every file is pure, single files where a directory mixes.
 * Everything else is `integration`, so a new file in a mixed directory runs there unless listed.
 */
const UNIT = [
  'test/*.test.ts',
  'test/{architecture,core,events,identity,signing,util}/**/*.test.ts',
  'test/conformance/*.test.ts',
  'test/conformance/inspect/*.test.ts',
  // skills-ref.test.ts (beside these) runs the Python reference validator.
  'test/conformance/plugin/{credentials,json-error,rules}.test.ts',
  'test/api/{badge,errors}.test.ts',
  'test/api/pages/html.test.ts',
  'test/api/svg/*.test.ts',
  'test/cli/{check-command,command-table,format}.test.ts',
  'test/processors/{judge-probe,listing-context,memo,merge-agent,scheduler-plan}.test.ts',
  'test/processors/changes/{derive,known-states}.test.ts',
  'test/producers/{canary,kafka-sink,probe-worker-settings}.test.ts',
  'test/kafka/transient.test.ts',
  'test/producers/{probe,sources}/**/*.test.ts',
  'test/http/**/*.test.ts',
  // mcp.test.ts and conformance-agree.test.ts (beside these) spawn the Python SDK and the conformance CLI.
  'test/inspect/{a2a,auth,request}.test.ts',
  'test/webhooks/{signature,subscriptions}.test.ts',
  'test/runtime/{canary-targets,instance}.test.ts',
  'test/usecases/{inspect,plugin-package}.test.ts',
  'test/stats/wilson.test.ts',
  'test/warehouse/row-binary.test.ts',
  'test/search/*.test.ts',
];

/** Unit files that mock a module (vi.mock): they get a module graph of their own. */
const MOCKING = ['test/cli/check-command.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores on these machines: more workers only thrash the broker and the engine.
    maxWorkers: 2,
    // One reporter for the whole run, whichever projects it covers: one closing summary line.
    reporters: ['default', './test/setup/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          exclude: [...configDefaults.exclude, ...MOCKING],
          // Pure modules hold no state a test could leave behind, so the files of a worker share
          // one module graph: each file would otherwise import it again (most of this project's time).
          isolate: false,
          setupFiles: ['test/setup/unit-guard.ts'],
        },
      },
      {
        extends: true,
        test: {
          // A module mock takes effect only in a graph that has not loaded the module yet.
          name: 'unit-isolated',
          include: MOCKING,
          setupFiles: ['test/setup/unit-guard.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT],
          // A Kafka broker for these tests (VERONIKAI_KAFKA_BROKERS, or a local one started in the background).
          // A migrated warehouse that test/helpers/warehouse.ts copies for each fresh one.
          globalSetup: ['test/setup/kafka.ts', 'test/setup/warehouse-template.ts'],
        },
      },
    ],
  },
});
