/**
 * Conformance engine throughput: verdicts per second on a realistic mix of real A2A agent cards
 * and MCP server.json files (the shared corpus, read in place from ../shared/corpus), on one
 * core, printed beside the baseline of JSON.parse alone on the same texts.
 *
 *   npx tsx bench/conformance.ts [seconds per measurement, default 3]
 *
 * The engine figure is the whole document check: parse, the card suite and the structural check
 * with attribution, tolerant and alternative verdicts (cards) or the MCP quality rules
 * (server.json), the canonical inputs hash, and verdict assembly.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism, cpus } from 'node:os';
import { checkA2ACard, checkServerJson, CHECKER_VERSION } from '../src/conformance/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = resolve(root, '..', 'shared', 'corpus');
const seconds = Number(process.argv[2] ?? 3);

interface Doc {
  kind: 'card' | 'server';
  text: string;
}

function load(): { docs: Doc[]; source: string } {
  const read = (dir: string, kind: Doc['kind']): Doc[] =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => ({ kind, text: readFileSync(join(dir, f), 'utf8') }))
      : [];
  const cards = [...read(join(corpus, 'a2a-cards'), 'card'), ...read(join(corpus, 'a2a-compliance-examples'), 'card')];
  const servers = read(join(corpus, 'mcp-server-json'), 'server');
  if (cards.length + servers.length > 0)
    return {
      docs: [...cards, ...servers],
      source: `shared corpus (../shared/corpus): ${cards.length} A2A cards, ${servers.length} server.json files`,
    };
  console.log(
    "NOTE: the shared corpus (../shared/corpus) is absent; measuring on the project's own fixtures instead, which are smaller and less varied than real documents.",
  );
  const fx = join(root, 'test', 'fixtures', 'conformance');
  const fcards = read(join(fx, 'a2a'), 'card');
  const fservers = read(join(fx, 'mcp'), 'server');
  return { docs: [...fcards, ...fservers], source: `test fixtures: ${fcards.length} cards, ${fservers.length} server.json files` };
}

/**
 * Rates of several functions over the same documents, measured in alternating rounds, so that
 * load from other processes on a shared machine weighs on every function alike. Returns docs per
 * second of wall time and of CPU time (this process's user + system time: what the work cost,
 * however busy the machine was).
 */
function measureInterleaved(
  fns: Record<string, { docs: Doc[]; fn: (d: Doc) => unknown }>,
): Record<string, { wall: number; cpu: number; n: number }> {
  let sink = 0;
  const names = Object.keys(fns);
  const warmEnd = performance.now() + 500 * names.length;
  while (performance.now() < warmEnd) for (const k of names) for (const d of fns[k]!.docs) sink += fns[k]!.fn(d) ? 1 : 0;
  const acc: Record<string, { wall: number; cpu: number; n: number }> = {};
  for (const k of names) acc[k] = { wall: 0, cpu: 0, n: 0 };
  const roundMs = 100;
  const end = performance.now() + seconds * 1000 * names.length;
  while (performance.now() < end) {
    for (const k of names) {
      const { docs, fn } = fns[k]!;
      const a = acc[k]!;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      do {
        for (const d of docs) sink += fn(d) ? 1 : 0;
        a.n += docs.length;
      } while (performance.now() - t0 < roundMs);
      a.wall += performance.now() - t0;
      const c = process.cpuUsage(c0);
      a.cpu += (c.user + c.system) / 1000;
    }
  }
  const out: Record<string, { wall: number; cpu: number; n: number }> = {};
  for (const k of names) {
    const a = acc[k]!;
    out[k] = { wall: a.n / (a.wall / 1000), cpu: a.n / (a.cpu / 1000), n: a.n };
  }
  if (sink < 0) console.log(sink);
  return out;
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

const { docs, source } = load();
const bytes = docs.reduce((s, d) => s + Buffer.byteLength(d.text), 0);
const ctx = { subject: 'bench', observedAt: '2026-01-01T00:00:00.000Z' };
console.log(`VeronikAI conformance benchmark (${CHECKER_VERSION})`);
console.log(`node ${process.version}, one thread on ${cpus()[0]?.model ?? 'unknown CPU'} (${availableParallelism()} available)`);
console.log(`inputs: ${source}; mean size ${Math.round(bytes / docs.length).toLocaleString('en-US')} bytes`);
console.log('');
const cards = docs.filter((d) => d.kind === 'card');
const servers = docs.filter((d) => d.kind === 'server');
const judge = (d: Doc): unknown =>
  d.kind === 'card' ? checkA2ACard({ text: d.text }, ctx).structure : checkServerJson({ text: d.text }, ctx);
const r = measureInterleaved({
  'JSON.parse alone (baseline)': { docs, fn: (d) => JSON.parse(d.text) },
  'engine: parse + judge + hash + verdicts': { docs, fn: judge },
  ...(cards.length && servers.length
    ? {
        '  of which A2A cards (two suites)': { docs: cards, fn: judge },
        '  of which server.json (MCP quality)': { docs: servers, fn: judge },
      }
    : {}),
});
console.log(`${''.padEnd(42)} ${'docs/s'.padStart(10)} ${'docs/CPU-s'.padStart(12)}   (interleaved rounds of 100 ms, ${seconds} s each)`);
for (const [k, v] of Object.entries(r))
  console.log(`${k.padEnd(42)} ${fmt(v.wall).padStart(10)} ${fmt(v.cpu).padStart(12)}   (${fmt(v.n)} docs)`);
const parse = r['JSON.parse alone (baseline)']!;
const engine = r['engine: parse + judge + hash + verdicts']!;
console.log('');
console.log(`engine / JSON.parse on CPU time: ${(engine.cpu / parse.cpu).toFixed(3)} (less sensitive to other load on the machine)`);
console.log(`target 0.35: ${engine.wall / parse.wall >= 0.35 ? 'met' : 'NOT met'}`);
console.log(
  `conformance: engine/JSON.parse = ${(engine.wall / parse.wall).toFixed(3)} (docs ${docs.length}, engine ${fmt(engine.wall)} docs/s, JSON.parse ${fmt(parse.wall)} docs/s)`,
);
