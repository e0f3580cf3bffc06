/**
 * Fuzz over the codec (issue 10): for every writer schema a codec knows (its registry, so event
 * types and history schemas added later are covered) and for odd schemas the project does not
 * have, bodies behind a valid header and fingerprint: honest, random, truncated, bit-flipped,
 * and with hostile lengths, block counts and indexes.
 *
 * Stated bounds, per decode of a message under 4 KB: it returns an event or throws a
 * DecodeError (nothing else), grows the heap by at most DECODE_HEAP_BOUND while it runs, and
 * takes under DECODE_TIME_BOUND_MS. An honest body always decodes.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeError, type EventCodec } from '../../src/events/codec.js';
import { eventCodec } from '../../src/events/codec.js';
import { avroBody, HOSTILE_COUNTS, rng } from './avro-bytes.js';
import { varint } from './hostile-message.js';
import { oddCodec } from './odd-schemas.js';

const DECODE_HEAP_BOUND = 8 * 1024 * 1024;
const DECODE_TIME_BOUND_MS = 100;
const RUNS = 150;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const codecs: [string, EventCodec][] = [
  ['project', eventCodec()],
  ['odd', oddCodec()],
];
const writers = codecs.flatMap(([label, codec]) => codec.writerSchemas().map((w) => ({ ...w, label, codec })));
type Writer = (typeof writers)[number];

const headerOf = (w: Writer): Buffer => Buffer.concat([Buffer.from([0xc3, 0x01]), Buffer.from(w.fingerprint, 'hex')]);

/** One decode: 'ok' or the DecodeError's kind (anything else fails), its time and heap growth. */
function measuredDecode(w: Writer, message: Buffer): { outcome: string; ms: number; grew: number } {
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  let outcome: string;
  try {
    const ev = w.codec.decode(message);
    expect(ev.name).toBe(w.eventName);
    outcome = 'ok';
  } catch (err) {
    if (!(err instanceof DecodeError)) throw new Error(`decode threw ${String(err)}, not a DecodeError`, { cause: err });
    outcome = err.kind;
  }
  return { outcome, ms: performance.now() - started, grew: process.memoryUsage().heapUsed - heapBefore };
}

/**
 * Decodes under the stated bounds. A call over a bound is run twice more and judged by its best
 * run: a slow or greedy decode is so every time, a GC pause or a busy machine is not.
 */
function boundedDecode(w: Writer, message: Buffer): string {
  let m = measuredDecode(w, message);
  for (let again = 0; again < 2 && (m.ms >= DECODE_TIME_BOUND_MS || m.grew >= DECODE_HEAP_BOUND); again++) {
    const n = measuredDecode(w, message);
    m = { outcome: m.outcome, ms: Math.min(m.ms, n.ms), grew: Math.min(m.grew, n.grew) };
  }
  expect(m.ms, `decode of ${message.length} bytes took ${m.ms.toFixed(1)} ms`).toBeLessThan(DECODE_TIME_BOUND_MS);
  expect(m.grew, `decode of ${message.length} bytes grew the heap by ${m.grew} bytes`).toBeLessThan(DECODE_HEAP_BOUND);
  return m.outcome;
}

/** Bodies of `w`: an honest or hostile encoding, then maybe truncated, bit-flipped, spliced or replaced. */
const mangled = (w: Writer) =>
  fc
    .record({
      seed: fc.integer(),
      hostility: fc.constantFrom(0, 0.02, 0.1, 0.5),
      mutation: fc.oneof(
        fc.constant({ kind: 'none' as const }),
        fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
        fc.record({ kind: fc.constant('flip' as const), bits: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }) }),
        fc.record({
          kind: fc.constant('splice' as const),
          at: fc.nat(),
          drop: fc.nat({ max: 4 }),
          count: fc.oneof(fc.constantFrom(...HOSTILE_COUNTS), fc.integer()),
        }),
        fc.record({ kind: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 512 }) }),
      ),
    })
    .map(({ seed, hostility, mutation }) => {
      let body = avroBody(w.type, rng(seed), hostility);
      switch (mutation.kind) {
        case 'truncate':
          body = body.subarray(0, body.length === 0 ? 0 : mutation.at % body.length);
          break;
        case 'flip':
          body = Buffer.from(body);
          for (const bit of mutation.bits) if (body.length > 0) body[(bit >> 3) % body.length]! ^= 1 << (bit & 7);
          break;
        case 'splice': {
          const at = body.length === 0 ? 0 : mutation.at % body.length;
          body = Buffer.concat([body.subarray(0, at), varint(mutation.count), body.subarray(at + mutation.drop)]);
          break;
        }
        case 'random':
          body = Buffer.from(mutation.bytes);
      }
      return { body, hostility, mutation: mutation.kind };
    });

describe.each(writers.map((w) => [`${w.label} ${w.eventName} ${w.fingerprint}`, w] as const))('decoding %s', (_, w) => {
  it('an honest body always decodes', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        expect(boundedDecode(w, Buffer.concat([headerOf(w), avroBody(w.type, rng(seed), 0)]))).toBe('ok');
      }),
      { numRuns: RUNS },
    );
    // And what avsc itself writes for its own random values.
    for (let i = 0; i < 20; i++) expect(boundedDecode(w, Buffer.concat([headerOf(w), w.type.toBuffer(w.type.random())]))).toBe('ok');
  });

  it('random, truncated, bit-flipped and hostile bodies end as an event or a DecodeError, within the bounds', () => {
    gc();
    const heapAtStart = process.memoryUsage().heapUsed;
    fc.assert(
      fc.property(mangled(w), ({ body, hostility, mutation }) => {
        const outcome = boundedDecode(w, Buffer.concat([headerOf(w), body]));
        // A strict prefix of an encoding is never a whole value (Avro values delimit themselves).
        if (mutation === 'truncate' && hostility === 0) expect(outcome).not.toBe('ok');
      }),
      { numRuns: RUNS * 2 },
    );
    gc();
    expect(process.memoryUsage().heapUsed - heapAtStart).toBeLessThan(DECODE_HEAP_BOUND);
  });
});
