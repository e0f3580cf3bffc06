import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * What each command loads: the modules its module reaches through the imports that run (type-only
 * imports left out; dynamic imports followed, since a flag can take them). The owners' commands
 * (`check`, `inspect`, `probe`) never reach the warehouse engine, Kafka or the API, and the
 * CLI's entry reaches no command module but through the command table's dynamic imports.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { options } = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as { options: ICruiseOptions };

/** Every dependency that runs, `from -> to` with its kinds (npm packages as node_modules/<name>/…), from the CLI's entry on. */
async function graph(): Promise<{ from: string; to: string; types: string[] }[]> {
  const { output } = await cruise(['src/cli/main.ts'], { ...options, baseDir: ROOT, tsPreCompilationDeps: false, outputType: 'json' });
  const result = (typeof output === 'string' ? JSON.parse(output) : output) as ICruiseResult;
  return result.modules.flatMap((m) =>
    m.dependencies.map((d) => ({ from: m.source, to: d.resolved, types: d.dependencyTypes as string[] })),
  );
}
const edges = await graph();

/** The modules reachable from one module. */
function reach(entry: string): string[] {
  const seen = new Set([entry]);
  const todo = [entry];
  for (let m = todo.pop(); m !== undefined; m = todo.pop()) {
    for (const e of edges) {
      if (e.from !== m || seen.has(e.to)) continue;
      seen.add(e.to);
      todo.push(e.to);
    }
  }
  return [...seen];
}

/**
 * What an owner's command must never load: the warehouse and its engine, Kafka, the API and the
 * composition that opens them (runtime, but for its use cases, which a command runs).
 */
const HEAVY =
  /^(src\/(warehouse|kafka|api|stack)\/|src\/runtime\/(?!usecases\/)|node_modules\/(chdb|kafkajs|fastify|@fastify|@clickhouse)\/)/;

describe('each command loads what it uses', () => {
  for (const command of ['check', 'inspect', 'probe']) {
    it(`${command} reaches no warehouse, Kafka or API module`, () => {
      const modules = reach(`src/cli/commands/${command}.ts`);
      expect(modules).toContain(`src/cli/commands/${command}.ts`);
      expect(modules.filter((m) => HEAVY.test(m))).toEqual([]);
    });
  }

  it('the check of the test itself: run reaches them all', () => {
    const modules = reach('src/cli/commands/run.ts');
    const hit = (re: RegExp) => modules.some((m) => re.test(m));
    expect([
      hit(/^src\/warehouse\//),
      hit(/^src\/kafka\//),
      hit(/^src\/api\//),
      hit(/^node_modules\/chdb\//),
      hit(/^node_modules\/kafkajs\//),
    ]).toEqual([true, true, true, true, true]);
  });

  it('the entry imports the command modules only through the table, dynamically', () => {
    // (A command may use another's module, as run uses crawl's.)
    const intoCommands = edges.filter((e) => e.to.startsWith('src/cli/commands/') && !e.from.startsWith('src/cli/commands/'));
    expect(intoCommands.length).toBeGreaterThan(10);
    for (const e of intoCommands)
      expect({ ...e, types: e.types.includes('dynamic-import') }).toEqual({ from: 'src/cli/command-table.ts', to: e.to, types: true });
    // Nothing the entry or the table import statically reaches a command.
    const staticFromEntry = edges
      .filter((e) => (e.from === 'src/cli/main.ts' || e.from === 'src/cli/command-table.ts') && !e.types.includes('dynamic-import'))
      .map((e) => e.to);
    expect(staticFromEntry.filter((m) => m.startsWith('src/')).sort()).toEqual(['src/cli/command-table.ts']);
  });
});
