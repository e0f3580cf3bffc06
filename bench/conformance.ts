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

interface Doc { kind: 'card' | 'server'; text: string }

function load(): { docs: Doc[]; source: string } {
  const read = (dir: string, kind: Doc['kind']): Doc[] =>
    existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => ({ kind, text: readFileSync(join(dir, f), 'utf8') })) : [];
  const cards = [...read(join(corpus, 'a2a-cards'), 'card'), ...read(join(corpus, 'a2a-compliance-examples'), 'card')];
  const servers = read(join(corpus, 'mcp-server-json'), 'server');
  if (cards.length + servers.length > 0) return { docs: [...cards, ...servers], source: `shared corpus (../shared/corpus): ${cards.length} A2A cards, ${servers.length} server.json files` };
  console.log('NOTE: the shared corpus (../shared/corpus) is absent; measuring on the project\'s own fixtures instead, which are smaller and less varied than real documents.');
  const fx = join(root, 'test', 'fixtures', 'conformance');
  const fcards = read(join(fx, 'a2a'), 'card');
  const fservers = read(join(fx, 'mcp'), 'server');
  return { docs: [...fcards, ...fservers], source: `test fixtures: ${fcards.length} cards, ${fservers.length} server.json files` };
}

function measure(label: string, docs: Doc[], fn: (d: Doc) => unknown): number {
  let sink = 0;
  // warm-up
  const warmEnd = performance.now() + 500;
  while (performance.now() < warmEnd) for (const d of docs) sink += fn(d) ? 1 : 0;
  let n = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    for (const d of docs) sink += fn(d) ? 1 : 0;
    n += docs.length;
  }
  const rate = n / ((performance.now() - t0) / 1000);
  console.log(`${label.padEnd(42)} ${Math.round(rate).toLocaleString('en-US').padStart(10)} docs/s   (${n.toLocaleString('en-US')} docs${sink < 0 ? '' : ''})`);
  return rate;
}

const { docs, source } = load();
const bytes = docs.reduce((s, d) => s + Buffer.byteLength(d.text), 0);
const ctx = { subject: 'bench', observedAt: '2026-01-01T00:00:00.000Z' };
console.log(`VeronikAI conformance benchmark (${CHECKER_VERSION})`);
console.log(`node ${process.version}, one thread on ${cpus()[0]?.model ?? 'unknown CPU'} (${availableParallelism()} available)`);
console.log(`inputs: ${source}; mean size ${Math.round(bytes / docs.length).toLocaleString('en-US')} bytes`);
console.log('');
const parse = measure('JSON.parse alone (baseline)', docs, (d) => JSON.parse(d.text));
const engine = measure('engine: parse + judge + hash + verdicts', docs, (d) => (d.kind === 'card' ? checkA2ACard({ text: d.text }, ctx).structure : checkServerJson({ text: d.text }, ctx)));
const cards = docs.filter((d) => d.kind === 'card');
const servers = docs.filter((d) => d.kind === 'server');
if (cards.length && servers.length) {
  measure('  of which A2A cards (two suites)', cards, (d) => checkA2ACard({ text: d.text }, ctx).card);
  measure('  of which server.json (MCP quality)', servers, (d) => checkServerJson({ text: d.text }, ctx));
}
console.log('');
console.log(`engine / JSON.parse: ${(engine / parse).toFixed(3)} (the engine runs at ${((engine / parse) * 100).toFixed(1)}% of the speed of parsing alone)`);
console.log(`target 20,000 docs/s: ${engine >= 20_000 ? 'met' : 'NOT met'}`);
