import { Kafka, logLevel, type KafkaConfig, type LogEntry, type logCreator } from 'kafkajs';
import type { Logger } from '../log.js';

export interface CreateKafkaOptions {
  /** Bootstrap servers: `host:port[,host:port…]` or a list. */
  brokers: string | readonly string[];
  clientId: string;
  logger: Logger;
  /** Milliseconds to wait for a TCP connection to a broker (default 3000). */
  connectionTimeout?: number;
  /** Milliseconds to wait for a broker's answer (default 30000). */
  requestTimeout?: number;
  /** kafkajs retry settings for metadata and admin requests. */
  retry?: KafkaConfig['retry'];
}

export function parseBrokers(brokers: string | readonly string[]): string[] {
  const list = (typeof brokers === 'string' ? brokers.split(',') : [...brokers]).map((b) => b.trim()).filter(Boolean);
  if (list.length === 0) throw new Error('no Kafka broker given');
  return list;
}

/** The kafkajs level that lets through what the pino logger would print, no more. */
function kafkajsLevelFor(logger: Logger): logLevel {
  const lvl = logger.levelVal;
  if (!Number.isFinite(lvl)) return logLevel.NOTHING; // 'silent' is Infinity
  if (lvl <= 20) return logLevel.DEBUG;
  if (lvl <= 30) return logLevel.INFO;
  if (lvl <= 40) return logLevel.WARN;
  if (lvl <= 50) return logLevel.ERROR;
  return logLevel.NOTHING;
}

/**
 * kafkajs log lines → pino. kafkajs logs each failed request of a connection at ERROR
 * even when it retries it (e.g. "the coordinator is loading" right after a broker
 * start); those become info lines here, since the caller sees the real error if the
 * retries run out.
 */
export function kafkajsLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = log;
      const child = { kafkajs: namespace || undefined, ...extra };
      switch (level) {
        case logLevel.ERROR:
          if (namespace === 'Connection') logger.info(child, message);
          else logger.error(child, message);
          break;
        case logLevel.WARN:
          // Our producers retry a bounded number of times on purpose (a write that cannot succeed
          // must fail, so that its batch stays uncommitted); a re-sent event duplicates nothing
          // visible, as every event has an id and sinks are idempotent. Not worth a warning each time.
          if (message.startsWith('Limiting retries for the idempotent producer')) logger.debug(child, message);
          else logger.warn(child, message);
          break;
        case logLevel.INFO:
          logger.info(child, message);
          break;
        default:
          logger.debug(child, message);
      }
    };
}

/** One kafkajs client for the given brokers, logging through the project's logger. */
export function createKafka(opts: CreateKafkaOptions): Kafka {
  const logger = opts.logger.child({ component: 'kafka', clientId: opts.clientId });
  return new Kafka({
    clientId: opts.clientId,
    brokers: parseBrokers(opts.brokers),
    connectionTimeout: opts.connectionTimeout ?? 3000,
    requestTimeout: opts.requestTimeout ?? 30_000,
    retry: opts.retry ?? { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    logLevel: kafkajsLevelFor(logger),
    logCreator: kafkajsLogCreator(logger),
  });
}
