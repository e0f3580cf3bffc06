import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkA2ACard,
  checkServerJson,
  judgeA2AObservation,
  judgeMcpObservation,
  type A2AObservation,
  type McpObservation,
  type UptimeVerdict,
  type Verdict,
} from '../../src/conformance/index.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures', 'conformance');
export const GOLDEN_DIR = join(FIXTURES, 'golden');
/** The shared corpus of real documents, read in place (never copied into the project). */
export const CORPUS = resolve(ROOT, '..', 'shared', 'corpus');
export const HAVE_CORPUS = existsSync(join(CORPUS, 'a2a-cards')) && existsSync(join(CORPUS, 'mcp-server-json'));
export const CORPUS_ABSENT_NOTE = `shared corpus not found at ../shared/corpus (looked in ${CORPUS}): corpus tests skipped`;

export const OBSERVED_AT = '2026-01-01T00:00:00.000Z';
/** The context every test judges in: one fixed observation time. */
export const ctxOf = (subject: string) => ({ subject, observedAt: OBSERVED_AT });
/** The rule IDs of a verdict's findings, in order. */
export const ruleIds = (v: { findings: Array<{ ruleId: string }> }): string[] => v.findings.map((f) => f.ruleId);

export interface Judged {
  uptime?: UptimeVerdict;
  card?: Verdict;
  structure?: Verdict;
  mcp?: Verdict;
}

export function listFixtures(): string[] {
  const out: string[] = [];
  for (const dir of ['a2a', 'mcp', 'observations']) {
    for (const f of readdirSync(join(FIXTURES, dir)).sort()) if (f.endsWith('.json')) out.push(`${dir}/${f}`);
  }
  return out;
}

export function judgeFixture(rel: string): Judged {
  const text = readFileSync(join(FIXTURES, rel), 'utf8');
  const ctx = ctxOf(rel);
  if (rel.startsWith('a2a/')) return checkA2ACard({ text }, ctx);
  if (rel.startsWith('mcp/')) return { mcp: checkServerJson({ text }, ctx) };
  const f = JSON.parse(text) as { kind: string; observation: unknown };
  if (f.kind === 'a2a-observation') return judgeA2AObservation(f.observation as A2AObservation, ctx);
  if (f.kind === 'mcp-observation') {
    const r = judgeMcpObservation(f.observation as McpObservation, ctx);
    return { uptime: r.uptime, mcp: r.verdict };
  }
  throw new Error(`unknown fixture kind in ${rel}`);
}

export function verdictsOf(j: Judged): Verdict[] {
  return [j.card, j.structure, j.mcp].filter((v): v is Verdict => v !== undefined);
}

export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export interface TestCard {
  skills: Array<{ id?: string; name?: string; description?: string; tags?: unknown[] }>;
  [key: string]: unknown;
}

/** A complete A2A card without a version claim of its own; tests add or break fields. */
export function recipeCard(over: Record<string, unknown> = {}): TestCard {
  return {
    name: 'Recipe Agent',
    description: 'Finds recipes.',
    url: 'https://agent.acme-recipes.dev/a2a',
    version: '1.0.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'S', description: 'Does S.', tags: [] }],
    ...over,
  };
}

export interface TestServerJson {
  remotes: Array<{ type: string; url: string }>;
  [key: string]: unknown;
}

/** A server.json that passes every quality rule; tests add or break fields. */
export function weatherServerJson(over: Record<string, unknown> = {}): TestServerJson {
  return {
    name: 'io.github.acme/weather',
    title: 'Acme Weather',
    description: 'Forecasts, radar maps and severe-weather alerts for any city.',
    version: '1.2.0',
    repository: { url: 'https://github.com/acme/weather-mcp', source: 'github' },
    remotes: [{ type: 'streamable-http', url: 'https://mcp.acme-weather.dev/mcp' }],
    ...over,
  };
}
