import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  agentChangeId,
  deriveListingChanges,
  deriveProbeChanges,
  failingRuleIds,
  type ProbeFacts,
  type StatePoint,
} from '../../../src/processors/changes/derive.js';

/** The pure derivation of agent changes: no broker, no warehouse. */

const KEY = 'https://weather.example.dev';
const CV = '1.2.3';
const H = 3_600_000;

const probe = (i: number, uptime: string, verdict = 'pass', extra: Partial<ProbeFacts> = {}): ProbeFacts => ({
  eventId: `p${i}`,
  agentKey: KEY,
  protocol: 'a2a',
  observedAt: i * H,
  uptime,
  reason: uptime === 'down' ? 'no answer: connection refused' : 'card URL answered 200',
  verdict,
  verdictReasons: verdict === 'fail' ? ['A2A-CARD-003 /name: missing', 'A2A-CARD-007 /url: not https', 'A2A-CARD-003 /x: again'] : [],
  ...extra,
});

/** What the warehouse holds for these probes (as the verdict processor wrote them). */
const history = (facts: readonly ProbeFacts[]) => {
  const up = new Map<string, StatePoint[]>();
  const ver = new Map<string, StatePoint[]>();
  for (const f of facts) {
    if (f.uptime === 'up' || f.uptime === 'down')
      up.set(f.agentKey, [...(up.get(f.agentKey) ?? []), { observedAt: f.observedAt, eventId: f.eventId, state: f.uptime }]);
    if (f.verdict !== 'unknown')
      ver.set(f.agentKey, [...(ver.get(f.agentKey) ?? []), { observedAt: f.observedAt, eventId: f.eventId, state: f.verdict }]);
  }
  return { uptimeHistory: up, verdictHistory: ver };
};

const names = new Map([[KEY, 'Weather Agent']]);
const derive = (events: readonly ProbeFacts[], known: readonly ProbeFacts[] = events) =>
  deriveProbeChanges({ events, ...history(known), names, checkerVersion: CV });

// up, up, down, down, unknown, up; the verdict passes while up, is unknown while down, fails at the end.
const SEQ = [
  probe(1, 'up'),
  probe(2, 'up'),
  probe(3, 'down', 'unknown'),
  probe(4, 'down', 'unknown'),
  probe(5, 'unknown', 'unknown'),
  probe(6, 'up', 'fail'),
];

describe('deriveProbeChanges', () => {
  it('gives one down, one up and one verdict change for up, up, down, down, unknown, up', () => {
    const changes = derive(SEQ);
    expect(changes.map((c) => [c.kind, c.causeEventId, c.fromState, c.toState])).toEqual([
      ['down', 'p3', 'up', 'down'],
      ['up', 'p6', 'down', 'up'],
      ['verdict', 'p6', 'pass', 'fail'],
    ]);
    const [down, up, verdict] = changes;
    expect(down).toMatchObject({
      observedAt: 3 * H,
      checkerVersion: '',
      reasons: ['no answer: connection refused'],
      summary: 'Weather Agent went down: no answer: connection refused',
    });
    expect(up!.summary).toBe('Weather Agent came back up');
    expect(verdict).toMatchObject({
      checkerVersion: CV,
      reasons: ['A2A-CARD-003', 'A2A-CARD-007'],
      summary: "Weather Agent's verdict changed from pass to fail (2 rules failing)",
    });
    // The id is the documented hash: kind, agent key, cause event and (verdicts only) the checker version.
    const sha = (fields: string[]) => createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 32);
    expect(down!.id).toBe(sha(['down', KEY, 'p3']));
    expect(verdict!.id).toBe(sha(['verdict', KEY, 'p6', CV]));
    expect(down!.agentId).toMatch(/^[0-9a-f]+$/);
  });

  it('derives the same changes whether the probes come in one batch, one by one, or again', () => {
    const all = derive(SEQ);
    const oneByOne = SEQ.flatMap((e, i) => derive([e], SEQ.slice(0, i + 1)));
    expect(oneByOne).toEqual(all);
    // The batch's own probes need not be in the history read: the derivation adds them.
    expect(derive(SEQ, [])).toEqual(all);
    // A redelivered probe within a batch counts once.
    expect(derive([...SEQ, SEQ[2]!])).toEqual(all);
  });

  it("makes no change for an agent's first decided check, nor for unknown and skipped checks", () => {
    expect(
      derive([probe(1, 'unknown', 'unknown'), probe(2, 'down', 'unknown'), probe(3, 'skipped', 'unknown'), probe(4, 'down', 'unknown')]),
    ).toEqual([]);
  });

  it('compares a late, older probe with what came before it, not with the newest state', () => {
    // Known: up at 1, down at 3, up at 6. A late probe observed at 2 (up) arrives after all of them.
    const known = [probe(1, 'up'), probe(3, 'down', 'unknown'), probe(6, 'up')];
    const late = probe(2, 'up');
    expect(derive([late], [...known, late])).toEqual([]);
    // A late down at 5 (between down at 3 and up at 6) is no change either: it was already down.
    expect(derive([probe(5, 'down', 'unknown')], known)).toEqual([]);
  });

  it('orders probes of the same millisecond by event id', () => {
    const a = probe(1, 'up', 'pass', { eventId: 'a', observedAt: H });
    const b = probe(1, 'down', 'unknown', { eventId: 'b', observedAt: H });
    expect(derive([b, a]).map((c) => [c.kind, c.causeEventId])).toEqual([['down', 'b']]);
  });

  it('names an agent by its key when its name is unknown', () => {
    const changes = deriveProbeChanges({
      events: [probe(1, 'up'), probe(2, 'down', 'unknown')],
      ...history([]),
      names: new Map(),
      checkerVersion: CV,
    });
    expect(changes[0]!.summary).toBe(`${KEY} went down: no answer: connection refused`);
    expect(changes[0]!.name).toBe('');
  });
});

describe('deriveListingChanges', () => {
  const agent = (active: boolean) => ({ agentKey: KEY, protocol: 'a2a', name: 'Weather Agent', active });
  const causes = new Map([
    [
      KEY,
      [
        { id: 'l1', observedAt: 10, live: false },
        { id: 'l2', observedAt: 20, live: true },
        { id: 'l3', observedAt: 30, live: false },
      ],
    ],
  ]);

  it('lists a new agent from the first live listing event, and delists from the last one that was not live', () => {
    const [listed] = deriveListingChanges([agent(true)], new Map(), causes);
    expect(listed).toMatchObject({
      kind: 'listed',
      causeEventId: 'l2',
      observedAt: 20,
      fromState: null,
      toState: 'listed',
      summary: 'Weather Agent was newly listed',
    });
    expect(listed!.id).toBe(agentChangeId('listed', KEY, 'l2'));
    const [delisted] = deriveListingChanges([agent(false)], new Map([[KEY, true]]), causes);
    expect(delisted).toMatchObject({
      kind: 'delisted',
      causeEventId: 'l3',
      fromState: 'listed',
      toState: 'delisted',
      summary: 'Weather Agent was delisted',
    });
    const [again] = deriveListingChanges([agent(true)], new Map([[KEY, false]]), causes);
    expect(again).toMatchObject({ kind: 'listed', fromState: 'delisted', summary: 'Weather Agent was listed again' });
  });

  it('makes no change when the active flag stays as it was', () => {
    expect(deriveListingChanges([agent(true)], new Map([[KEY, true]]), causes)).toEqual([]);
    expect(deriveListingChanges([agent(false)], new Map([[KEY, false]]), causes)).toEqual([]);
    expect(deriveListingChanges([agent(false)], new Map(), causes)).toEqual([]);
  });
});

describe('failingRuleIds', () => {
  it('keeps rule ids, once each, and leaves out unknown, n/a and summary lines', () => {
    expect(
      failingRuleIds([
        'MCP-Q-004 /description: too short',
        'MCP-Q-004 /x: again',
        '… 3 more findings not listed (A2A-CARD-001)',
        'unknown: no card',
        'n/a: no server.json',
        'TEST-001 /d: x',
      ]),
    ).toEqual(['MCP-Q-004', 'TEST-001']);
  });
});
