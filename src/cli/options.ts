import { Option, type Command } from 'commander';
import { UsageError, type ConfigOverrides } from '../config.js';
import type { Logger } from '../log.js';

/** The configuration flags every long-running role shares (they override VERONIKAI_* variables). */
export function addConfigOptions(cmd: Command, parts: { api?: boolean; sources?: boolean } = {}): Command {
  cmd
    .option('--data-dir <dir>', 'where local state lives (env VERONIKAI_DATA_DIR; default .veronikai)')
    .option('--cache-dir <dir>', 'where the broker jars are cached (env VERONIKAI_CACHE_DIR)')
    .option('--brokers <list>', 'Kafka bootstrap servers host:port[,…]; none starts the local broker (env VERONIKAI_KAFKA_BROKERS)')
    .option('--warehouse <where>', '"embedded" (chdb in the data dir) or a ClickHouse HTTP URL (env VERONIKAI_WAREHOUSE)')
    .option('--contact <email>', 'contact address carried in the crawler User-Agent (env VERONIKAI_CONTACT)');
  if (parts.api) {
    cmd
      .option('--host <host>', 'API listen address (env VERONIKAI_HOST; default 127.0.0.1)')
      .option('--port <port>', 'API port; 0 picks a free one (env VERONIKAI_PORT; default 8787)');
  }
  if (parts.sources) {
    cmd.addOption(
      new Option('--source-url <name=url>', "a listing source's base URL (repeatable; env VERONIKAI_SOURCE_URLS)")
        .argParser((v: string, prev: string[] = []) => [...prev, v]),
    );
  }
  return cmd;
}

export function overridesFrom(opts: Record<string, unknown>): ConfigOverrides {
  const pick = (k: string) => (typeof opts[k] === 'string' ? (opts[k] as string) : undefined);
  return {
    dataDir: pick('dataDir'),
    cacheDir: pick('cacheDir'),
    brokers: pick('brokers'),
    warehouse: pick('warehouse'),
    host: pick('host'),
    port: pick('port'),
    contact: pick('contact'),
    sourceUrl: Array.isArray(opts.sourceUrl) ? (opts.sourceUrl as string[]) : undefined,
  };
}

/** Parses durations like 30s, 15m, 24h, 7d. */
export function parseDuration(value: string, flag: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(value.trim());
  if (!m) throw new UsageError(`${flag} expects a duration such as 30s, 15m, 24h or 7d, got "${value}"`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  const ms = Number(m[1]) * unit;
  // Node timers hold at most 2^31 - 1 ms (about 24.8 days); a longer one would fire at once.
  if (ms < 1 || ms > MAX_TIMER_MS) throw new UsageError(`${flag} must be between 1ms and 24d, got "${value}"`);
  return ms;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Resolves on SIGINT or SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/**
 * One shutdown listener for a whole command: the returned signal aborts (its reason is the
 * signal's name) on the first SIGINT or SIGTERM. The listener goes away then (or on dispose),
 * so a further signal ends the process the default way, e.g. during a long crawl.
 */
export function onShutdown(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const dispose = () => {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  };
  const on = (sig: NodeJS.Signals) => {
    dispose();
    controller.abort(sig);
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return { signal: controller.signal, dispose };
}

/** Resolves once the signal aborts (at once when it already has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Waits `ms`, or less when the signal aborts (the timer is cleared then). Resolves true when it waited the whole time. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs each shutdown step in turn, the later ones even when one fails (that is logged), so nothing is left running. */
export async function closeAll(log: Logger, steps: ReadonlyArray<() => Promise<unknown> | undefined>): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      log.warn({ err }, 'error while shutting down');
    }
  }
}

/** Parses a whole number ≥ 0 given to a flag. */
export function parseCount(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number ≥ 0, got "${value}"`);
  return n;
}
