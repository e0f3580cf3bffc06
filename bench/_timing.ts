/**
 * Where a replay's time goes, measured from outside src/: a warehouse that times every call by
 * what it is (the insert's table, the refreshed table of an INSERT … SELECT, the table a query
 * reads), and a checker and signer that time the judgement. The verdict writer awaits each call
 * in turn, so the wall times add up to its batch time.
 */
import { performance } from 'node:perf_hooks';
import type { Checker } from '../src/processors/verdicts/checker.js';
import type { InsertRow, TableName } from '../src/warehouse/tables.js';
import type { Warehouse } from '../src/warehouse/warehouse.js';

export class Timings {
  readonly ms = new Map<string, number>();
  readonly calls = new Map<string, number>();
  add(what: string, ms: number): void {
    this.ms.set(what, (this.ms.get(what) ?? 0) + ms);
    this.calls.set(what, (this.calls.get(what) ?? 0) + 1);
  }
  reset(): void {
    this.ms.clear();
    this.calls.clear();
  }
  total(): number {
    let s = 0;
    for (const v of this.ms.values()) s += v;
    return s;
  }
  rows(): Array<{ what: string; ms: number; calls: number }> {
    return [...this.ms.entries()].map(([what, ms]) => ({ what, ms, calls: this.calls.get(what) ?? 0 })).sort((a, b) => b.ms - a.ms);
  }
}

function label(kind: 'query' | 'exec', sql: string): string {
  const into = /INSERT\s+INTO\s+([A-Za-z_][A-Za-z0-9_]*)/i.exec(sql);
  if (into) return `refresh ${into[1]} (INSERT … SELECT)`;
  const from = /FROM\s+([A-Za-z_][A-Za-z0-9_]*)/i.exec(sql);
  return `${kind} ${from ? from[1] : sql.slice(0, 30)}`;
}

/** `warehouse` with every call timed into `t` (under `enabled()` only). */
export function timedWarehouse(warehouse: Warehouse, t: Timings, enabled: () => boolean): Warehouse {
  const time = async <R>(what: string, run: () => Promise<R>): Promise<R> => {
    if (!enabled()) return run();
    const t0 = performance.now();
    try {
      return await run();
    } finally {
      t.add(what, performance.now() - t0);
    }
  };
  return new Proxy(warehouse, {
    get(target, prop, receiver) {
      if (prop === 'insert')
        return <T extends TableName>(table: T, rows: readonly InsertRow<T>[]) => time(`insert ${table}`, () => target.insert(table, rows));
      if (prop === 'exec')
        return (sql: string, params?: Parameters<Warehouse['exec']>[1]) => time(label('exec', sql), () => target.exec(sql, params));
      if (prop === 'query')
        return (sql: string, params?: Parameters<Warehouse['query']>[1]) => time(label('query', sql), () => target.query(sql, params));
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The checker, under the same version, with each judgement timed. */
export function timedChecker(checker: Checker, t: Timings, enabled: () => boolean): Checker {
  const timed =
    <A extends unknown[], R>(what: string, fn: (...a: A) => R) =>
    (...a: A): R => {
      if (!enabled()) return fn(...a);
      const t0 = performance.now();
      try {
        return fn(...a);
      } finally {
        t.add(what, performance.now() - t0);
      }
    };
  return {
    version: checker.version,
    judgeA2A: timed('judge A2A (conformance engine)', checker.judgeA2A.bind(checker)),
    judgeMcp: timed('judge MCP (conformance engine)', checker.judgeMcp.bind(checker)),
  };
}
