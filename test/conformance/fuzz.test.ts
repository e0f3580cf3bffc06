import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckRun } from '../../src/conformance/index.js';
import { checkDocumentBytes, MAX_FILE_BYTES } from '../../src/runtime/usecases/check.js';
import { ctxOf, FIXTURES } from './helpers.js';

/**
 * Fuzz over the card/server.json engine through `check`'s own path (checkDocumentBytes: the
 * bytes decoded strictly as UTF-8, the kind detected, the document judged). Random, truncated,
 * invalid-UTF-8 and oversized inputs always end as a verdict (never a throw, never an internal
 * error), and the heap stays within a stated bound around each batch.
 *
 * The bounds (heap growth measured after a full collection before the batch, sampled after
 * every input without collecting, and after a full collection at the end):
 * - small inputs (≤ 64 KiB): at most SMALL_PEAK_MB above the start at any sample;
 * - oversized inputs (up to the check cap, 8 MiB): at most OVERSIZED_BASE_MB + OVERSIZED_FACTOR ×
 *   the input's size above the start, for each input (garbage not yet collected included);
 * - nothing kept: at most RETAINED_MB above the start once a batch is over.
 */

const SMALL_PEAK_MB = 96;
const OVERSIZED_BASE_MB = 64;
const OVERSIZED_FACTOR = 16;
const RETAINED_MB = 8;
const MB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext('gc') as () => void);

/** Runs a batch, sampling the heap after each input; returns the peak and retained growth in bytes. */
function heapAround(batch: (sample: () => void) => void): { peak: number; retained: number } {
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  batch(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - base)));
  gc();
  return { peak, retained: process.memoryUsage().heapUsed - base };
}

const ctx = ctxOf('fuzz');
const RESULTS = ['pass', 'fail', 'unknown', 'n/a'];

/** Ends as a verdict: a result for every verdict of the kind, no internal error, printable reasons. */
function verdictOf(run: CheckRun): CheckRun {
  expect(run.verdicts).toHaveLength(run.kind === 'a2a-card' ? 2 : 1);
  for (const v of run.verdicts) {
    expect(RESULTS).toContain(v.result);
    expect(v.reasons.join('\n')).not.toMatch(/internal error/);
    // eslint-disable-next-line no-control-regex -- reasons must hold no control characters but tab and line feed
    for (const r of v.reasons) expect(r).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  }
  return run;
}

const judge = (bytes: Uint8Array, kind?: 'card' | 'server-json') =>
  verdictOf(checkDocumentBytes(bytes, 'fuzz.json', kind ? { kind } : {}, ctx));
const strictUtf8 = (b: Uint8Array) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
};

const fixture = (rel: string) => readFileSync(join(FIXTURES, rel));
const goodCard = JSON.parse(fixture('a2a/good-0.3.json').toString()) as Record<string, unknown>;
const goodServer = JSON.parse(fixture('mcp/good.json').toString()) as Record<string, unknown>;
/** Documents that pass, some with multi-byte characters to cut and corrupt. */
const SEEDS: Array<{ bytes: Buffer; kind: 'card' | 'server-json' }> = [
  { bytes: fixture('a2a/good-0.3.json'), kind: 'card' },
  { bytes: fixture('a2a/good-1.0.json'), kind: 'card' },
  {
    bytes: Buffer.from(
      JSON.stringify({ ...goodCard, name: 'Küchen-Agent 🍳', description: 'Rezepte für den Kühlschrank — 冷蔵庫のレシピ' }),
    ),
    kind: 'card',
  },
  { bytes: fixture('mcp/good.json'), kind: 'server-json' },
  {
    bytes: Buffer.from(JSON.stringify({ ...goodServer, description: 'Serveur météo — données 天気 ☀️ for the world' })),
    kind: 'server-json',
  },
];

/** Byte sequences that are never valid UTF-8, wherever they are put. */
const INVALID = [
  [0xff],
  [0xfe],
  [0xff, 0xfe],
  [0x80],
  [0xbf],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xc3, 0x28],
  [0xe2, 0x28, 0xa1],
];

const RUNS = 150;

describe('fuzz: check on a document always ends as a verdict, in bounded memory', () => {
  it('random bytes, as a card, a server.json and detected', () => {
    const heap = heapAround((sample) => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.uint8Array({ maxLength: 4096 }),
            fc.string({ unit: 'binary', maxLength: 1024 }).map((s) => new TextEncoder().encode(s)),
          ),
          (bytes) => {
            const valid = strictUtf8(bytes);
            for (const kind of ['card', 'server-json', undefined] as const) {
              const run = judge(bytes, kind);
              // not UTF-8: never a pass; not JSON either, it fails for that, else with the crawler's word for it
              if (!valid)
                expect(run.verdicts[0]!.reasons[0]).toMatch(/^(A2A-CARD-003|MCP-Q-001) #: .*(invalid_utf8|does not parse as JSON)/);
            }
            sample();
          },
        ),
        { numRuns: RUNS },
      );
    });
    expect(heap.peak).toBeLessThan(SMALL_PEAK_MB * MB);
    expect(heap.retained).toBeLessThan(RETAINED_MB * MB);
  });

  it('truncated documents: every cut ends as a verdict, and a cut inside a character fails A2A-CARD-003 or MCP-Q-001', () => {
    const heap = heapAround((sample) => {
      fc.assert(
        fc.property(fc.constantFrom(...SEEDS), fc.double({ min: 0, max: 1, noNaN: true }), ({ bytes, kind }, at) => {
          const cut = bytes.subarray(0, Math.floor(at * bytes.length));
          const run = judge(cut, kind);
          if (!strictUtf8(cut)) expect(run.verdicts[0]!.findings[0]!.message).toMatch(/invalid_utf8|does not parse as JSON/);
          if (cut.length < bytes.toString().trimEnd().length) expect(run.verdicts[0]!.result).toBe('fail');
          sample();
        }),
        { numRuns: RUNS },
      );
    });
    expect(heap.peak).toBeLessThan(SMALL_PEAK_MB * MB);
    expect(heap.retained).toBeLessThan(RETAINED_MB * MB);
  });

  it('invalid UTF-8 anywhere in a passing document: it never passes, whatever the bytes replace', () => {
    for (const { bytes, kind } of SEEDS) expect(judge(bytes, kind).verdicts[0]!.result).toBe('pass');
    const heap = heapAround((sample) => {
      fc.assert(
        fc.property(
          fc.constantFrom(...SEEDS),
          fc.constantFrom(...INVALID),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.boolean(),
          ({ bytes, kind }, bad, at, replace) => {
            const i = Math.floor(at * bytes.length);
            const corrupt = Buffer.concat([
              bytes.subarray(0, i),
              Buffer.from(bad),
              bytes.subarray(replace ? Math.min(bytes.length, i + bad.length) : i),
            ]);
            for (const k of [kind, undefined]) {
              const [first] = judge(corrupt, k).verdicts;
              expect(first!.result).toBe('fail');
              // The bytes may break the JSON too: then that is the first finding; else the crawler's word for it.
              expect(first!.findings[0]).toMatchObject({
                ruleId: expect.stringMatching(/^(A2A-CARD-003|MCP-Q-001)$/),
                message: expect.stringMatching(/invalid_utf8|does not parse as JSON/),
              });
            }
            sample();
          },
        ),
        { numRuns: RUNS },
      );
    });
    expect(heap.peak).toBeLessThan(SMALL_PEAK_MB * MB);
    expect(heap.retained).toBeLessThan(RETAINED_MB * MB);
  });

  it('oversized documents up to the check cap: a verdict each, within the stated heap bound', () => {
    const skill = (goodCard.skills as unknown[])[0] as Record<string, unknown>;
    const json = (v: unknown) => Buffer.from(JSON.stringify(v));
    const oversized: Array<[string, () => Buffer]> = [
      ['not UTF-8 at the cap', () => Buffer.alloc(MAX_FILE_BYTES, 0xff)],
      ['a string value at the cap', () => json({ ...goodCard, description: 'x'.repeat(MAX_FILE_BYTES - 2048) })],
      [
        'a valid card ending in a bad byte at the cap',
        () => Buffer.concat([json({ ...goodCard, description: 'é'.repeat((MAX_FILE_BYTES - 4096) / 2) }), Buffer.from([0xff])]),
      ],
      ['deep nesting (1 MiB)', () => Buffer.from('{"a":'.repeat(MB / 5))],
      ['deep arrays (1 MiB)', () => Buffer.from('['.repeat(MB))],
      ['30 000 skills', () => json({ ...goodCard, skills: Array.from({ length: 30_000 }, (_, i) => ({ ...skill, id: `s${i}` })) })],
      ['1 000 000 ill-typed skills (2 MiB)', () => json({ ...goodCard, skills: Array.from({ length: 1_000_000 }, () => 0) })],
      ['50 000 keys', () => json(Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i])))],
      [
        '20 000 private remotes',
        () =>
          json({ ...goodServer, remotes: Array.from({ length: 20_000 }, (_, i) => ({ type: 'sse', url: `http://10.0.${i % 250}.1/x` })) }),
      ],
    ];
    for (const [name, make] of oversized) {
      let size = 0;
      let kind = '';
      const heap = heapAround((sample) => {
        const bytes = make();
        size = bytes.length;
        expect(size, name).toBeLessThanOrEqual(MAX_FILE_BYTES);
        kind = judge(bytes).kind; // the run itself is dropped: what it holds is not retained growth
        sample();
      });
      expect(kind, name).toMatch(/^(a2a-card|mcp-server-json)$/);
      expect(heap.peak, `${name}: ${(heap.peak / MB).toFixed(1)} MB for ${(size / MB).toFixed(1)} MB`).toBeLessThan(
        OVERSIZED_BASE_MB * MB + OVERSIZED_FACTOR * size,
      );
      expect(heap.retained, name).toBeLessThan(RETAINED_MB * MB);
    }
  });
});
