import { describe, expect, it } from 'vitest';
import type { ProbeFacts } from '../../../src/processors/changes/derive.js';
import { KnownStates, statesOf } from '../../../src/processors/changes/known-states.js';

/** The change writer's memory of each agent's newest states between batches (pure). */

const fact = (eventId: string, agentKey: string, observedAt: number, uptime: string, verdict: string): ProbeFacts => ({
  eventId,
  agentKey,
  protocol: 'mcp',
  observedAt,
  uptime,
  reason: '',
  verdict,
  verdictReasons: [],
});
const batch = (partition: number, first: number, last: number) => ({ partition, firstOffset: String(first), lastOffset: String(last) });

describe('KnownStates', () => {
  it("keeps each agent's newest decided uptime and verdict, and serves them to the batch that continues the partition", () => {
    const known = new KnownStates();
    const b1 = batch(0, 0, 9);
    const run = known.runOf(b1);
    known.finish(b1, run, new Map(), [
      fact('e1', 'a', 100, 'up', 'pass'),
      fact('e2', 'a', 200, 'unknown', 'unknown'), // undecided: keeps the states, moves what is known
      fact('e3', 'b', 150, 'down', 'fail'),
    ]);
    const next = batch(0, 10, 19);
    expect(known.runOf(next)).toBe(run);
    expect(known.get('a', run, { observedAt: 300, eventId: 'e4' })).toEqual({
      uptime: { observedAt: 100, eventId: 'e1', state: 'up' },
      verdict: { observedAt: 100, eventId: 'e1', state: 'pass' },
      newest: { observedAt: 200, eventId: 'e2' },
      run,
    });
    expect(known.get('b', run, { observedAt: 151, eventId: 'x' })?.uptime?.state).toBe('down');
  });

  it('serves nothing to a late probe, to a batch that does not start where the last one ended, or after a failed batch', () => {
    const known = new KnownStates();
    const b1 = batch(3, 100, 199);
    const run = known.runOf(b1);
    known.finish(b1, run, new Map(), [fact('e1', 'a', 1000, 'up', 'pass')]);
    // A probe before (or at) what is known needs the history around it.
    expect(known.get('a', run, { observedAt: 999, eventId: 'z' })).toBeUndefined();
    expect(known.get('a', run, { observedAt: 1000, eventId: 'e1' })).toBeUndefined();
    expect(known.get('a', run, { observedAt: 1000, eventId: 'e2' })).toBeDefined();
    // The same batch again (its commit failed), or a gap (another member wrote the offsets between): a new run.
    const again = known.runOf(batch(3, 100, 199));
    expect(again).not.toBe(run);
    expect(known.get('a', again, { observedAt: 2000, eventId: 'e9' })).toBeUndefined();
    expect(known.runOf(batch(3, 250, 299))).not.toBe(run);
    // Another partition's batches run on their own.
    expect(known.runOf(batch(4, 200, 299))).not.toBe(run);
    expect(known.runOf(batch(3, 200, 299))).toBe(run);
    known.forget(3);
    expect(known.runOf(batch(3, 200, 299))).not.toBe(run);
  });

  it('moves states read from the history on by the batch, and forgets the least recently used agent past its capacity', () => {
    const known = new KnownStates(2);
    const b = batch(0, 0, 2);
    const run = known.runOf(b);
    const read = statesOf(
      [
        { observedAt: 10, eventId: 'h1', state: 'down' },
        { observedAt: 30, eventId: 'h3', state: 'up' },
      ],
      [{ observedAt: 20, eventId: 'h2', state: 'fail' }],
    )!;
    expect(read.newest).toEqual({ observedAt: 30, eventId: 'h3', state: 'up' });
    expect(statesOf([], [])).toBeNull();
    known.finish(b, run, new Map([['a', read]]), [
      fact('e1', 'a', 40, 'unknown', 'pass'),
      fact('e2', 'b', 40, 'up', 'pass'),
      fact('e3', 'c', 40, 'up', 'pass'),
    ]);
    const after = { observedAt: 50, eventId: 'n' };
    expect(known.get('a', run, after)).toBeUndefined(); // the oldest of three, past a capacity of two
    expect(known.get('c', run, after)?.uptime?.eventId).toBe('e3');
    const k = new KnownStates();
    const r = k.runOf(b);
    k.finish(b, r, new Map([['a', read]]), [fact('e1', 'a', 40, 'unknown', 'pass')]);
    expect(k.get('a', r, after)).toMatchObject({
      uptime: { eventId: 'h3', state: 'up' },
      verdict: { eventId: 'e1', state: 'pass' },
      newest: { observedAt: 40, eventId: 'e1' },
    });
  });
});
