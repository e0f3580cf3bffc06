import type { FieldName, Fields } from './fields.js';
import { terms } from './analyze.js';

/**
 * BM25F as the index computes it (docs/SEARCH.md). For a term t of a document d:
 *
 *   tf~(t, d) = Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avg_f)
 *   impact(t, d) = tf~ / (K1 + tf~)                       (in [0, 1), stored quantised)
 *   score(q, d) = Σ_words max over the word's terms (expansion weight · idf(t) · (K1 + 1) · impact)
 *
 * The average field lengths are fixed constants (avg_f), not recomputed as the index grows, so a
 * document's impacts depend on the document alone and a posting never has to be rewritten.
 */

export const K1 = 1.2;
/** Impacts are stored as integers 0..IMPACT_SCALE. */
export const IMPACT_SCALE = 65535;
/** Distinct terms a document is indexed under, at most (its highest impacts kept). */
export const DOC_TERMS_MAX = 512;

/** Weight, length normalisation and typical length (in terms) of each field. */
export const FIELD_WEIGHTS: Record<FieldName, { w: number; b: number; avg: number }> = {
  name: { w: 5, b: 0.5, avg: 3 },
  title: { w: 4, b: 0.5, avg: 4 },
  tags: { w: 3, b: 0.5, avg: 6 },
  skills: { w: 2.5, b: 0.6, avg: 6 },
  packages: { w: 2, b: 0.5, avg: 5 },
  provider: { w: 1.5, b: 0.5, avg: 4 },
  url: { w: 1.5, b: 0.5, avg: 4 },
  description: { w: 1.5, b: 0.75, avg: 20 },
  skillText: { w: 1.5, b: 0.75, avg: 30 },
  examples: { w: 0.75, b: 0.75, avg: 20 },
};

/** How much a word's expansion counts against its exact term. */
export const EXPANSION_WEIGHT = { exact: 1, prefix: 0.8, completion: 0.5, typo: 0.6 } as const;
export type ExpansionKind = keyof typeof EXPANSION_WEIGHT;

/**
 * Bounded boosts from our own measurements and from word order, multiplying relevance (so they
 * reorder close matches, never lift a poor match over a good one): at most +PHRASE_BOOST when every
 * pair of neighbouring query words stands side by side in one field (half for within
 * PROXIMITY_WINDOW terms), +UP_NOW_BOOST when the latest check was up, +UPTIME_BOOST × the 30-day
 * uptime share, +PASS_BOOST when the latest conformance verdict passed.
 */
export const PHRASE_BOOST = 0.25;
export const PROXIMITY_WINDOW = 3;
export const UP_NOW_BOOST = 0.05;
export const UPTIME_BOOST = 0.05;
export const PASS_BOOST = 0.05;

/** The terms of each field, in order. */
export function fieldTerms(fields: Fields): Record<FieldName, string[]> {
  const out = {} as Record<FieldName, string[]>;
  for (const f of Object.keys(FIELD_WEIGHTS) as FieldName[]) out[f] = terms(fields[f]);
  return out;
}

/** A document's impact for each of its terms (quantised), its highest DOC_TERMS_MAX. */
export function documentImpacts(fields: Fields): Map<string, number> {
  const byField = fieldTerms(fields);
  const tf = new Map<string, number>();
  for (const f of Object.keys(FIELD_WEIGHTS) as FieldName[]) {
    const ts = byField[f];
    if (ts.length === 0) continue;
    const { w, b, avg } = FIELD_WEIGHTS[f];
    const norm = 1 - b + (b * ts.length) / avg;
    const counts = new Map<string, number>();
    for (const t of ts) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [t, c] of counts) tf.set(t, (tf.get(t) ?? 0) + (w * c) / norm);
  }
  const impacts = [...tf].map(([t, x]) => [t, Math.max(1, Math.round((IMPACT_SCALE * x) / (K1 + x)))] as [string, number]);
  impacts.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(impacts.slice(0, DOC_TERMS_MAX));
}

/** Inverse document frequency (the BM25 form that never goes negative). */
export function idf(df: number, n: number): number {
  return Math.log(1 + (Math.max(n, df) - df + 0.5) / (df + 0.5));
}

/** One term's part of a score. */
export const termPart = (kind: ExpansionKind, idfValue: number, impact: number): number =>
  EXPANSION_WEIGHT[kind] * idfValue * (K1 + 1) * (impact / IMPACT_SCALE);

/**
 * The phrase and proximity boost: over the query's neighbouring word pairs, the share standing side
 * by side in one field (a pair within PROXIMITY_WINDOW counts half). `fields` are term sequences;
 * `words` the set of terms each query word matched, in query order.
 */
export function phraseBoost(words: ReadonlyArray<ReadonlySet<string>>, fields: ReadonlyArray<readonly string[]>): number {
  if (words.length < 2) return 0;
  let got = 0;
  for (let i = 0; i + 1 < words.length; i++) {
    let best = 0;
    for (const ts of fields) {
      for (let a = 0; a < ts.length && best < 1; a++) {
        if (!words[i]!.has(ts[a]!)) continue;
        for (let d = 1; d <= PROXIMITY_WINDOW && a + d < ts.length; d++) {
          if (words[i + 1]!.has(ts[a + d]!)) best = Math.max(best, d === 1 ? 1 : 0.5);
        }
      }
    }
    got += best;
  }
  return (PHRASE_BOOST * got) / (words.length - 1);
}

/** The agent's own record, as the boosts read it. */
export interface AgentRecord {
  latestUptime: string;
  latestResult: string;
  /** Share of judged checks up over 30 days, null when none. */
  uptime30: number | null;
}

export function recordBoosts(r: AgentRecord | null): { upNow: number; uptime30: number; conformance: number } {
  return {
    upNow: r?.latestUptime === 'up' ? UP_NOW_BOOST : 0,
    uptime30: r?.uptime30 != null ? UPTIME_BOOST * Math.min(1, Math.max(0, r.uptime30)) : 0,
    conformance: r?.latestResult === 'pass' ? PASS_BOOST : 0,
  };
}
