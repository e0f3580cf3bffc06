// Values that globalSetup files hand to tests through vitest's provide/inject.
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by test/setup/kafka.ts; read it through test/helpers/kafka.ts. */
    kafka: {
      /** Bootstrap servers, `host:port[,…]`; empty when Kafka tests are disabled. */
      brokers: string;
      /** A broker given in VERONIKAI_KAFKA_BROKERS, not one started for this run. */
      external: boolean;
      /** Where the local broker's start reports `{"state":"ready"}` or `{"state":"failed","error":…}`. */
      statusFile: string | null;
      /** Why there is no broker (VERONIKAI_TEST_KAFKA=0). */
      disabled?: string;
    };
    /** Set by test/setup/warehouse-template.ts: a migrated embedded warehouse to copy (integration tests only). */
    warehouseTemplate?: string;
    /** Set by test/setup/kafka.ts (test/setup/containers.ts): where the run's services come from, and why. */
    services: {
      path: 'containers' | 'native';
      why: string;
      /** A current ClickHouse server's HTTP URL (containers only). */
      clickhouseUrl: string | null;
    };
  }
}
