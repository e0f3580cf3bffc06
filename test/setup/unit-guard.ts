/**
 * setupFile of the `unit` project (vitest.config.ts). Unit tests are pure logic: opening the
 * embedded engine, connecting to Kafka, or spawning the CLI, Java or a ClickHouse server fails
 * at once, pointing to the integration project, instead of quietly making the quick run slow or
 * dependent on a broker.
 *
 * Importing those modules stays allowed (many pure modules sit next to them); only using them fails.
 */
import type * as KafkaJs from 'kafkajs';
import { vi } from 'vitest';

const { refuse, guardedChildProcess } = vi.hoisted(() => {
  const refuse = (what: string): Error =>
    new Error(`${what} in a unit test: unit tests are pure logic; move this file to the integration project (see vitest.config.ts)`);
  /** What spawning a program must not start here, or null. */
  const forbidden = (cmd: unknown, args: unknown): string | null => {
    // `node bin/veronikai.js …` (test/helpers/cli.ts) or the CLI's entry under src/.
    const words = [cmd, ...(Array.isArray(args) ? args : [])];
    if (words.some((a) => typeof a === 'string' && /(bin[\\/]veronikai\.js|src[\\/]cli[\\/]main\.ts)$/.test(a)))
      return 'spawning the veronikai CLI';
    // The broker's JVM, or a ClickHouse server (test/helpers/clickhouse-server.ts).
    if (typeof cmd === 'string' && /(^|[\\/])(java|clickhouse(-server)?)$/.test(cmd)) return `starting ${cmd}`;
    return null;
  };
  const custom = Symbol.for('nodejs.util.promisify.custom');
  type Fn = (...args: unknown[]) => unknown;
  const guard = (fn: Fn): Fn => {
    const wrapped: Fn = (...args) => {
      const what = forbidden(args[0], args[1]);
      if (what) throw refuse(what);
      return fn(...args);
    };
    // execFile's promisified form resolves {stdout, stderr}: keep it.
    const promisified = (fn as unknown as Record<symbol, Fn | undefined>)[custom];
    if (promisified) Object.defineProperty(wrapped, custom, { value: guard(promisified) });
    return wrapped;
  };
  const guardedChildProcess = async (importOriginal: () => Promise<unknown>): Promise<Record<string, unknown>> => {
    const real = (await importOriginal()) as Record<string, unknown>;
    const mod = { ...real };
    for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork']) mod[name] = guard(real[name] as Fn);
    return { ...mod, default: mod };
  };
  return { refuse, guardedChildProcess };
});
// No original: loading the native engine library is itself the cost the unit project avoids.
vi.mock('chdb', () => {
  const fail = (): never => {
    throw refuse('the chdb engine');
  };
  class Session {
    constructor() {
      fail();
    }
  }
  const mod = {
    Session,
    query: fail,
    queryBind: fail,
    queryAsync: fail,
    queryBindAsync: fail,
    insert: fail,
    drainPending: fail,
    version: fail,
  };
  return { ...mod, default: mod };
});

vi.mock('kafkajs', async (importOriginal) => {
  const real = await importOriginal<typeof KafkaJs>();
  const guarded = <T extends { connect(): Promise<void> }>(client: T): T => {
    client.connect = () => Promise.reject(refuse('a Kafka connection'));
    return client;
  };
  type Client = InstanceType<typeof real.Kafka>;
  // Clients may be built (pure code does); connecting is what needs a broker.
  class Kafka extends real.Kafka {
    override producer(...args: Parameters<Client['producer']>) {
      return guarded(super.producer(...args));
    }
    override consumer(...args: Parameters<Client['consumer']>) {
      return guarded(super.consumer(...args));
    }
    override admin(...args: Parameters<Client['admin']>) {
      return guarded(super.admin(...args));
    }
  }
  // kafkajs is CommonJS: its namespace names only what Node's lexer found; `default` has it all (the error classes too).
  const mod = { ...real, ...((real as unknown as { default?: typeof KafkaJs }).default ?? {}), Kafka };
  return { ...mod, default: mod };
});

vi.mock('node:child_process', guardedChildProcess);
vi.mock('child_process', guardedChildProcess);
