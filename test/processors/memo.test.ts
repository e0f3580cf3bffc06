import { createHash, generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { hexProofs, leafJson, verifyHead, verifyLeaf, type SignedHead } from '../../src/conformance/tree-attestation.js';
import type { ProbeEvent, ProbeExchange } from '../../src/events/types.js';
import { signJudged } from '../../src/processors/verdicts/batch-sign.js';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { judgeProbe, latestRow, type JudgedProbe } from '../../src/processors/verdicts/judge-probe.js';
import { entryBytes, inputDigest, JudgementMemo, type Judgement } from '../../src/processors/verdicts/memo.js';
import type { DocumentTexts, ListingContext } from '../../src/processors/verdicts/observation.js';
import { probeEvent, probeExchange, serverJsonFor } from '../helpers/probe-events.js';

/**
 * Judging by input digest (memo.ts) and signing by batch (batch-sign.ts) change what a verdict
 * costs, never what it says: for any batches of probes drawn from a pool of inputs that repeat
 * (the daily probes of unchanged agents) and differ in every judged input, the memoised,
 * batch-signed rows equal the rows of each probe judged alone, in every column but the signature
 * fields; and every verdict verifies against its batch's signed head.
 */

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const T = Date.UTC(2026, 10, 29, 10);
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

const CARDS = readdirSync('test/fixtures/conformance/a2a')
  .filter((f) => f.endsWith('.json'))
  .slice(0, 8)
  .map((f) => readFileSync(`test/fixtures/conformance/a2a/${f}`));
const DOCUMENTS: DocumentTexts = new Map(CARDS.map((b) => [sha(b), { text: b.toString('utf8'), validUtf8: true }]));

const MCP_URLS = ['https://mcp.short-agent.dev/mcp', 'https://mcp.long-agent.dev/mcp'];
const CARD_HOSTS = ['https://agent.recipes-agent.dev', 'https://agent.weather-agent.dev'];

/** A judged input: everything the rules read, so two draws of the same input are the same probe seen twice. */
interface Input {
  protocol: 'a2a' | 'mcp';
  host: number;
  card: number;
  status: number | null;
  contentType: string;
  robots: ProbeEvent['robots'];
  canary: ProbeEvent['canary'];
  listing: number;
  mcpBody: number;
}

const MCP_BODIES = ['', 'event: endpoint\ndata: /x\n\n', '<html><body>login</body></html>'];
const LISTINGS: Array<(url: string) => ListingContext | null> = [
  () => null,
  (url) => {
    const text = serverJsonFor('io.github.short/s', 'Short but honest thirty chars.', url);
    return { serverJson: JSON.parse(text), transport: 'streamable-http', source: 'mcp-registry', serverJsonSha256: sha(text) };
  },
  (url) => {
    const text = serverJsonFor('io.github.long/l', 'A long and descriptive explanation of what this server offers.', url);
    return { serverJson: JSON.parse(text), transport: null, source: 'mcp-registry', serverJsonSha256: sha(text) };
  },
  // A listing built in memory without the text's hash: the digest hashes the document itself.
  (url) => ({ serverJson: { name: 'io.github.x/y', remotes: [{ type: 'sse', url }] }, transport: 'sse', source: 'smithery' }),
];

const input: fc.Arbitrary<Input> = fc.record({
  protocol: fc.constantFrom('a2a' as const, 'mcp' as const),
  host: fc.integer({ min: 0, max: 1 }),
  card: fc.integer({ min: 0, max: CARDS.length - 1 }),
  status: fc.constantFrom(200, 200, 200, 404, 405, 401, 503, null),
  contentType: fc.constantFrom('application/json', 'text/html', 'text/event-stream'),
  robots: fc.constantFrom('allowed' as const, 'allowed' as const, 'disallowed' as const, 'unreachable' as const, 'not_checked' as const),
  canary: fc.constantFrom('ok' as const, 'ok' as const, 'failed' as const),
  listing: fc.integer({ min: 0, max: LISTINGS.length - 1 }),
  mcpBody: fc.integer({ min: 0, max: MCP_BODIES.length - 1 }),
});

/** One probe of an input: what is the event's own (id, time, latency, sample) drawn apart. */
interface Probe {
  input: Input;
  ms: number;
  durationMs: number;
  inSample: boolean;
}

function eventOf(p: Probe, i: number): { ev: ProbeEvent; listing: ListingContext | null } {
  const { input: x } = p;
  const error = x.status === null ? 'refused' : null;
  let exchanges: ProbeExchange[];
  let key: string;
  if (x.protocol === 'a2a') {
    key = CARD_HOSTS[x.host]!;
    const card = CARDS[x.card]!;
    const ex = probeExchange('card', `${key}/.well-known/agent-card.json`, x.status, '', { 'content-type': x.contentType }, error);
    // A 200 card is kept as a document named by its hash, as the probe worker keeps it.
    exchanges = [
      x.status === 200 ? { ...ex, bodyKept: 'document', bodySha256: sha(card), bodyBytes: card.length } : { ...ex, bodyKept: 'none' },
    ];
  } else {
    key = MCP_URLS[x.host]!;
    exchanges = [
      { ...probeExchange('mcp-get', key, x.status, MCP_BODIES[x.mcpBody], { 'content-type': x.contentType }, error), bodyKept: 'excerpt' },
    ];
  }
  if (x.robots === 'unreachable')
    exchanges.unshift({ ...probeExchange('robots', `${new URL(key).origin}/robots.txt`, null, '', {}, 'timeout'), bodyKept: 'none' });
  exchanges = exchanges.map((e) => ({ ...e, durationMs: p.durationMs, startedAt: p.ms }));
  const ev = probeEvent(T + p.ms, `probe-${i}-${p.ms}`, key, x.protocol, exchanges, {
    robots: x.robots,
    canary: x.canary,
    inSample: p.inSample,
    runId: `run-${p.ms % 3}`,
  });
  return { ev, listing: x.protocol === 'mcp' ? LISTINGS[x.listing]!(key) : null };
}

/** A row without its signature fields. */
function unsigned(j: JudgedProbe) {
  const { signature: _s, head_id: _h, leaf_index: _i, proof: _p, ...verdict } = j.verdict;
  const { signature: _l, ...latest } = latestRow(j);
  return { check: j.check, verdict, latest, facts: j.facts, leaf: j.leaf };
}

const probes = (pool: Input[]) =>
  fc.array(
    fc.record({
      input: fc.constantFrom(...pool),
      ms: fc.integer({ min: 0, max: 80 * 86_400_000 }),
      durationMs: fc.integer({ min: 1, max: 5000 }),
      inSample: fc.boolean(),
    }),
    { minLength: 1, maxLength: 40 },
  );

describe('judging by input digest, signing by batch', () => {
  it('gives the rows of each probe judged alone, and every verdict verifies against its signed head', () => {
    // A pool of inputs that repeat, each differing from the first in one judged input: a digest that left out any of them would hand one the other's judgement.
    const FIELDS = ['protocol', 'host', 'card', 'status', 'contentType', 'robots', 'canary', 'listing', 'mcpBody'] as const;
    const pools = fc
      .tuple(input, fc.array(fc.tuple(input, fc.constantFrom(...FIELDS)), { minLength: 1, maxLength: 6 }))
      .map(([base, variants]) => [base, ...variants.map(([other, field]) => ({ ...base, [field]: other[field] }))]);
    const batches = pools.chain((pool) =>
      fc.tuple(fc.integer({ min: 1, max: 8 }), fc.array(probes(pool), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 48 })),
    );
    fc.assert(
      // perTree: verdicts under one head (the writer's is VERDICT_TREE_LEAVES), so a batch spans one tree or several.
      fc.property(batches, ([capacity, drawn, perTree]) => {
        // One memo across the batches, small enough that it also evicts.
        const memo = new JudgementMemo(capacity);
        let n = 0;
        for (const batch of drawn) {
          const events = batch.map((p) => eventOf(p, n++));
          const memoised = events.map(({ ev, listing }) => judgeProbe(ev, listing, CURRENT_CHECKER, DOCUMENTS, memo));
          const alone = events.map(({ ev, listing }) => judgeProbe(ev, listing, CURRENT_CHECKER, DOCUMENTS));
          const heads = signJudged(memoised, CURRENT_CHECKER.version, privateKey, perTree);
          expect(memoised.map(unsigned)).toEqual(alone.map(unsigned));
          expect(heads.map((h) => h.tree_size)).toEqual(
            Array.from({ length: Math.ceil(batch.length / perTree) }, (_, i) => Math.min(perTree, batch.length - i * perTree)),
          );
          for (const head of heads) {
            const signed: SignedHead = {
              id: head.head_id,
              checker: head.checker_version,
              size: head.tree_size,
              root: head.root_hash,
              alg: 'Ed25519',
              canonicalization: 'veronikai-jcs-1',
              keyId: head.key_id,
              signature: head.signature,
            };
            expect(verifyHead(signed, publicKey)).toBe(true);
            const under = memoised.filter((j) => j.verdict.head_id === head.head_id);
            expect(under.map((j) => j.verdict.leaf_index)).toEqual(under.map((_, i) => i));
            for (const j of under) {
              expect(j.verdict.proof!.length).toBeLessThanOrEqual(Math.ceil(Math.log2(head.tree_size)));
              expect(verifyLeaf(j.leaf, j.verdict.leaf_index!, hexProofs([j.verdict.proof!])[0]!, signed)).toBe(true);
            }
          }
        }
        expect(memo.size).toBeLessThanOrEqual(capacity);
      }),
      { numRuns: 150 },
    );
  });

  it('takes a repeated input from the memo: the daily probe of an unchanged agent costs a digest and a lookup', () => {
    const memo = new JudgementMemo();
    const x: Input = {
      protocol: 'a2a',
      host: 0,
      card: 0,
      status: 200,
      contentType: 'application/json',
      robots: 'allowed',
      canary: 'ok',
      listing: 0,
      mcpBody: 0,
    };
    const days = Array.from({ length: 30 }, (_, d) =>
      eventOf({ input: x, ms: d * 86_400_000, durationMs: 100 + d, inSample: d % 2 === 0 }, d),
    );
    for (const { ev, listing } of days) judgeProbe(ev, listing, CURRENT_CHECKER, DOCUMENTS, memo);
    expect({ hits: memo.hits, misses: memo.misses }).toEqual({ hits: 29, misses: 1 });
    // What is the event's own does not enter the digest; a judged input does.
    const [a, b] = [days[0]!, days[1]!];
    expect(inputDigest(a.ev, null)).toBe(inputDigest(b.ev, null));
    const changed = { ...a.ev, exchanges: a.ev.exchanges.map((e) => ({ ...e, headers: { 'content-type': 'text/html' } })) };
    expect(inputDigest(changed, null)).not.toBe(inputDigest(a.ev, null));
  });

  it('holds judgements up to a bound in bytes as well as in entries, dropping the least recently used', () => {
    const judgement = (reasons: string[]): Judgement => ({
      uptime: { state: 'up', reason: 'answered 200', ourSide: false, status: 200 } as Judgement['uptime'],
      primary: { suite: { id: 's', version: 1 }, result: 'fail', reasons, scope: 'observation', inputsHash: 'sha256:00' },
      structure: null,
    });
    const small = judgement([]);
    const large = judgement(Array.from({ length: 10 }, (_, i) => `RULE-${i} #/x: ${'why '.repeat(20)}`));
    expect(entryBytes('d', large)).toBeGreaterThan(5 * entryBytes('d', small));
    const memo = new JudgementMemo(1000, 20 * entryBytes('d0', small));
    for (let i = 0; i < 40; i++) memo.set(`d${i}`, small);
    expect(memo.size).toBeLessThanOrEqual(20);
    expect(memo.bytes).toBeLessThanOrEqual(memo.capacityBytes);
    memo.get('d39'); // used, so kept
    memo.set('big', large);
    expect(memo.peek('d39')).toBe(small);
    expect(memo.peek('big')).toBe(large);
    expect(memo.bytes).toBeLessThanOrEqual(memo.capacityBytes);
  });

  it('writes each leaf in the canonical JSON the method names', () => {
    fc.assert(
      fc.property(
        fc.record({
          eventId: fc.string(),
          subject: fc.string(),
          observedAt: fc.string(),
          checker: fc.string(),
          suite: fc.record({ id: fc.string(), version: fc.integer() }),
          scope: fc.constantFrom('document' as const, 'observation' as const),
          inputsHash: fc.string(),
          result: fc.constantFrom('pass' as const, 'fail' as const, 'unknown' as const, 'n/a' as const),
          reasons: fc.array(fc.string({ unit: 'binary' })),
        }),
        (p) => {
          expect(leafJson(p)).toBe(canonicalJson(p));
        },
      ),
    );
  });
});
