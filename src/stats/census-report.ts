import { wilson, type Proportion } from './wilson.js';

/**
 * The census report: its tables from the index's own rows. Counts come from every agent
 * judged that day and are labelled counts; estimates (shares with 95% Wilson intervals) come
 * from the day's uniform sample only (`in_sample = 1`), never from the whole set, whose
 * composition follows the listings and the revisit schedule rather than a random draw.
 * Pure: the runtime reads the rows (src/runtime/usecases/report.ts) and hands them here.
 */

/** One A2A card's structural verdict (see censusCardRows). */
export interface CardInput {
  inSample: boolean;
  /** declared | conflict | inferred | none (no recognised A2A claim). */
  route: string;
  /** The schema version judged against: 0.2.5 | 0.3.0 | 1.0.1 ('' for route none). */
  version: string;
  /** pass | fail | n/a. */
  result: string;
  tolerantValid: boolean | null;
  altVersion: string;
  altValid: boolean | null;
  pvWrongType: boolean;
  tagItemType: boolean;
  pvMissing: boolean;
}

/** Agents of one check outcome, by the sources that list them. */
export interface SourceOutcomeInput {
  sources: string[];
  inSample: boolean;
  uptime: string;
  result: string;
  agents: number;
}

export interface CensusInput {
  day: string;
  checkerVersion: string;
  cards: CardInput[];
  /** Active agents by the set of sources that list them. */
  sourceSets: Array<{ sources: string[]; agents: number }>;
  outcomes: SourceOutcomeInput[];
}

/** A group of cards: counts over all of them, the share invalid estimated from the sample. */
export interface CardGroup {
  key: string;
  /** Counts (census of the cards judged that day). */
  cards: number;
  valid: number;
  invalid: number;
  /** Estimate: invalid / (valid + invalid) among the group's in-sample cards. */
  sampleInvalid: Proportion;
}

export interface CensusReport {
  day: string;
  checkerVersion: string;
  method: string[];
  totals: { cards: number; valid: number; invalid: number; noClaim: number; inSample: number; sampleInvalid: Proportion };
  byRoute: CardGroup[];
  byVersion: CardGroup[];
  tolerant: { strictInvalid: number; validWhenTolerant: number; sampleShare: Proportion };
  alternative: {
    rows: Array<{ assigned: string; assignedValid: boolean; alternative: string; alternativeValid: boolean; cards: number }>;
    graded: number;
    changed: number;
    sampleChanged: Proportion;
  };
  defects: Array<{ id: string; description: string; cards: number; sampleShare: Proportion }>;
  sources: {
    coverage: Array<{ source: string; agents: number; onlyThisSource: number }>;
    overlap: { sources: string[]; matrix: number[][] };
    outcomes: Array<{
      source: string;
      checked: number;
      up: number;
      down: number;
      pass: number;
      fail: number;
      sampleUp: Proportion;
      samplePass: Proportion;
    }>;
  };
}

export const ROUTES = ['declared', 'conflict', 'inferred'] as const;
export const VERSIONS = ['0.2.5', '0.3.0', '1.0.1'] as const;

function group(key: string, cards: CardInput[]): CardGroup {
  const judged = cards.filter((c) => c.result === 'pass' || c.result === 'fail');
  const sample = judged.filter((c) => c.inSample);
  return {
    key,
    cards: judged.length,
    valid: judged.filter((c) => c.result === 'pass').length,
    invalid: judged.filter((c) => c.result === 'fail').length,
    sampleInvalid: wilson(sample.filter((c) => c.result === 'fail').length, sample.length),
  };
}

export function buildCensusReport(input: CensusInput): CensusReport {
  const cards = input.cards;
  const judged = cards.filter((c) => c.route !== 'none' && (c.result === 'pass' || c.result === 'fail'));
  const sampleJudged = judged.filter((c) => c.inSample);
  const all = group('all', judged);

  const strictInvalid = judged.filter((c) => c.result === 'fail');
  const tolerantOnly = strictInvalid.filter((c) => c.tolerantValid === true);
  const graded = judged.filter((c) => c.altVersion !== '' && c.altValid !== null);
  const transitions = new Map<
    string,
    { assigned: string; assignedValid: boolean; alternative: string; alternativeValid: boolean; cards: number }
  >();
  for (const c of graded) {
    const k = `${c.version}|${c.result}|${c.altVersion}|${c.altValid}`;
    const t = transitions.get(k) ?? {
      assigned: c.version,
      assignedValid: c.result === 'pass',
      alternative: c.altVersion,
      alternativeValid: c.altValid === true,
      cards: 0,
    };
    t.cards++;
    transitions.set(k, t);
  }
  const changes = (c: CardInput) => (c.result === 'pass') !== (c.altValid === true);
  const sampleGraded = graded.filter((c) => c.inSample);

  const share = (pick: (c: CardInput) => boolean) => wilson(sampleJudged.filter(pick).length, sampleJudged.length);
  const defects = [
    {
      id: 'protocolVersion-type',
      description: 'protocolVersion present with a type other than string (the relaxation that let protocolVersion: 42 pass)',
      pick: (c: CardInput) => c.pvWrongType,
    },
    {
      id: 'tags-item-type',
      description: 'a skills[].tags item that is not a string (the container was type-checked, its items were not)',
      pick: (c: CardInput) => c.tagItemType,
    },
    {
      id: 'protocolVersion-missing-inferred',
      description: 'an inferred card failing on a missing protocolVersion (the "circular" argument that set the requirement aside)',
      pick: (c: CardInput) => c.route === 'inferred' && c.pvMissing,
    },
  ].map((d) => ({ id: d.id, description: d.description, cards: judged.filter(d.pick).length, sampleShare: share(d.pick) }));

  // Sources: coverage and overlap of active agents (counts), outcomes of the day's checks.
  const names = [...new Set(input.sourceSets.flatMap((s) => s.sources))].sort();
  const index = new Map(names.map((n, i) => [n, i]));
  const matrix = names.map(() => names.map(() => 0));
  const coverage = names.map((source) => ({ source, agents: 0, onlyThisSource: 0 }));
  for (const set of input.sourceSets) {
    for (const a of set.sources) {
      const i = index.get(a)!;
      coverage[i]!.agents += set.agents;
      if (set.sources.length === 1) coverage[i]!.onlyThisSource += set.agents;
      for (const b of set.sources) matrix[i]![index.get(b)!]! += set.agents;
    }
  }
  const outcomeNames = [...new Set([...names, ...input.outcomes.flatMap((o) => o.sources)])].sort();
  const outcomes = outcomeNames.map((source) => {
    const rows = input.outcomes.filter((o) => o.sources.includes(source));
    const sum = (f: (o: SourceOutcomeInput) => boolean) => rows.filter(f).reduce((n, o) => n + o.agents, 0);
    const sUp = sum((o) => o.inSample && o.uptime === 'up');
    const sDown = sum((o) => o.inSample && o.uptime === 'down');
    const sPass = sum((o) => o.inSample && o.result === 'pass');
    const sFail = sum((o) => o.inSample && o.result === 'fail');
    return {
      source,
      checked: sum(() => true),
      up: sum((o) => o.uptime === 'up'),
      down: sum((o) => o.uptime === 'down'),
      pass: sum((o) => o.result === 'pass'),
      fail: sum((o) => o.result === 'fail'),
      sampleUp: wilson(sUp, sUp + sDown),
      samplePass: wilson(sPass, sPass + sFail),
    };
  });

  return {
    day: input.day,
    checkerVersion: input.checkerVersion,
    method: [
      "Counts are a census of the A2A cards the index judged on this UTC day (each agent's newest verdict that day): they describe those cards, not the ecosystem.",
      "Shares are estimates from the day's uniform random sample only (in_sample = 1), with 95% Wilson score intervals; n is the number of sampled cards behind each.",
      'Valid means required-field structural conformance against the attributed version (docs/CENSUS.md); it is not full compliance. Route none: no recognised A2A claim, no verdict.',
      'The route and version shares are properties of the attribution rule applied to these cards, not the shares of publishers that chose each version.',
      'Agents whose owners asked to be hidden are left out of every figure.',
    ],
    totals: {
      cards: cards.length,
      valid: all.valid,
      invalid: all.invalid,
      noClaim: cards.filter((c) => c.route === 'none').length,
      inSample: cards.filter((c) => c.inSample).length,
      sampleInvalid: all.sampleInvalid,
    },
    byRoute: ROUTES.map((r) =>
      group(
        r,
        judged.filter((c) => c.route === r),
      ),
    ),
    byVersion: VERSIONS.map((v) =>
      group(
        v,
        judged.filter((c) => c.version === v),
      ),
    ),
    tolerant: {
      strictInvalid: strictInvalid.length,
      validWhenTolerant: tolerantOnly.length,
      sampleShare: wilson(sampleJudged.filter((c) => c.result === 'fail' && c.tolerantValid === true).length, sampleJudged.length),
    },
    alternative: {
      rows: [...transitions.values()].sort(
        (a, b) =>
          a.assigned.localeCompare(b.assigned) ||
          Number(b.assignedValid) - Number(a.assignedValid) ||
          Number(b.alternativeValid) - Number(a.alternativeValid),
      ),
      graded: graded.length,
      changed: graded.filter(changes).length,
      sampleChanged: wilson(sampleGraded.filter(changes).length, sampleGraded.length),
    },
    defects,
    sources: { coverage, overlap: { sources: names, matrix }, outcomes },
  };
}

// ---- rendering ----

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
/** A share with its interval and n, e.g. "11.7% [8.1%–16.6%] (n=214)". */
export const estimate = (p: Proportion) =>
  p.share === null ? 'n/a (n=0)' : `${pct(p.share)} [${pct(p.low)}–${pct(p.high)}] (n=${p.trials})`;

type Table = { title: string; note?: string; head: string[]; rows: Array<Array<string | number>> };

function tables(r: CensusReport): Table[] {
  const groupRows = (gs: CardGroup[]) => gs.map((g) => [g.key, g.cards, g.valid, g.invalid, estimate(g.sampleInvalid)]);
  const groupHead = (what: string) => [
    what,
    'cards (count)',
    'valid (count)',
    'invalid (count)',
    'share invalid, sample estimate [95% CI]',
  ];
  return [
    {
      title: 'Cards',
      head: ['', 'count'],
      rows: [
        ['cards judged', r.totals.cards],
        ['valid', r.totals.valid],
        ['invalid', r.totals.invalid],
        ['no recognised A2A claim', r.totals.noClaim],
        ['of them in the sample', r.totals.inSample],
      ],
      note: `Share invalid among sampled cards with a verdict: ${estimate(r.totals.sampleInvalid)}.`,
    },
    { title: 'By attribution route', head: groupHead('route'), rows: groupRows(r.byRoute) },
    { title: 'By version family (schema judged against)', head: groupHead('version'), rows: groupRows(r.byVersion) },
    {
      title: 'tolerant_valid (a missing top-level protocolVersion set aside; never the verdict)',
      head: ['', 'value'],
      rows: [
        ['invalid cards (count)', r.tolerant.strictInvalid],
        ['of them valid when tolerant (count)', r.tolerant.validWhenTolerant],
        ['share of sampled cards that change, estimate', estimate(r.tolerant.sampleShare)],
      ],
    },
    {
      title: 'Alternative-version verdicts (inferred and conflict cards)',
      head: ['assigned', 'assigned verdict', 'alternative', 'alternative verdict', 'cards (count)'],
      rows: r.alternative.rows.map((t) => [
        t.assigned,
        t.assignedValid ? 'valid' : 'invalid',
        t.alternative,
        t.alternativeValid ? 'valid' : 'invalid',
        t.cards,
      ]),
      note: `${r.alternative.changed} of ${r.alternative.graded} graded cards change verdict under the alternative (count); sample estimate ${estimate(r.alternative.sampleChanged)}.`,
    },
    {
      title: 'The three defects of the structural check (docs/CENSUS.md)',
      head: ['defect', 'what', 'cards (count)', 'share of sampled cards, estimate'],
      rows: r.defects.map((d) => [d.id, d.description, d.cards, estimate(d.sampleShare)]),
    },
    {
      title: 'Per-source coverage (active agents, counts)',
      head: ['source', 'agents listed', 'listed by this source only'],
      rows: r.sources.coverage.map((c) => [c.source, c.agents, c.onlyThisSource]),
    },
    {
      title: "Overlap between sources (active agents both list, counts; the diagonal is each source's total)",
      head: ['', ...r.sources.overlap.sources],
      rows: r.sources.overlap.sources.map((s, i) => [s, ...r.sources.overlap.matrix[i]!]),
    },
    {
      title: "Per-source outcomes of the day's checks",
      head: [
        'source',
        'checked (count)',
        'up (count)',
        'down (count)',
        'pass (count)',
        'fail (count)',
        'share up, sample estimate',
        'share passing, sample estimate',
      ],
      rows: r.sources.outcomes.map((o) => [
        o.source,
        o.checked,
        o.up,
        o.down,
        o.pass,
        o.fail,
        estimate(o.sampleUp),
        estimate(o.samplePass),
      ]),
    },
  ];
}

export function renderCensusMarkdown(r: CensusReport): string {
  const cell = (v: string | number) => String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const out = [
    `# Census of A2A agent cards, ${r.day}`,
    '',
    `Checker version ${r.checkerVersion}.`,
    '',
    ...r.method.map((m) => `- ${m}`),
    '',
  ];
  for (const t of tables(r)) {
    out.push(`## ${t.title}`, '', `| ${t.head.map(cell).join(' | ')} |`, `|${t.head.map(() => '---').join('|')}|`);
    for (const row of t.rows) out.push(`| ${row.map(cell).join(' | ')} |`);
    if (t.note) out.push('', t.note);
    out.push('');
  }
  return `${out.join('\n')}`;
}

const esc = (v: string | number) => String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderCensusHtml(r: CensusReport): string {
  const parts = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Census of A2A agent cards</title>',
    '<style>body{font:14px/1.4 system-ui,sans-serif;margin:2rem;max-width:70rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}th{background:#f4f4f4}</style></head><body>',
    `<h1>Census of A2A agent cards, ${esc(r.day)}</h1><p>Checker version ${esc(r.checkerVersion)}.</p><ul>${r.method.map((m) => `<li>${esc(m)}</li>`).join('')}</ul>`,
  ];
  for (const t of tables(r)) {
    parts.push(`<h2>${esc(t.title)}</h2><table><thead><tr>${t.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>`);
    for (const row of t.rows) parts.push(`<tr>${row.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`);
    parts.push('</tbody></table>');
    if (t.note) parts.push(`<p>${esc(t.note)}</p>`);
  }
  parts.push('</body></html>\n');
  return parts.join('\n');
}
