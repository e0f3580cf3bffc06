import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv04Module from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  buildReport,
  checkA2ACard,
  checkServerJson,
  FINGERPRINT_KEY,
  fileUri,
  localArtifact,
  renderSarif,
  SARIF_SCHEMA_URI,
  SRCROOT,
  urlArtifact,
  type CheckRun,
} from '../../src/conformance/index.js';
import { buildInspectReport, renderInspectSarif, type InspectExchange } from '../../src/conformance/inspect/index.js';
import { renderPluginSarif } from '../../src/conformance/plugin/index.js';
import { checkPluginDirectory } from '../../src/runtime/usecases/plugin-package.js';
import { PLUGIN_FIXTURES } from './plugin/helpers.js';
import { CORPUS, ctxOf, FIXTURES, HAVE_CORPUS, judgeFixture, listFixtures, ROOT, verdictsOf } from './helpers.js';

/**
 * Every kind of SARIF log we write (check on a card, a server.json and a live URL; an Agent
 * Plugins package and a set of them; inspect) validates against the official SARIF 2.1.0 schema
 * (vendored in schemas/sarif/), formats included, on the real documents of the shared corpus and
 * on the fixtures. Artifact URIs are URI references (a path with a space is percent-encoded),
 * inputs inside the working directory are relative to %SRCROOT%, and every result has a
 * partial fingerprint that a line shift does not change.
 */

const SCHEMA_FILE = join(ROOT, 'schemas', 'sarif', 'sarif-schema-2.1.0.json');
const SCHEMA_SHA256 = 'c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e';
const schemaText = readFileSync(SCHEMA_FILE, 'utf8');
const schema = JSON.parse(schemaText) as { id: string };
// The package is CommonJS: its class is the module's default export.
const Ajv04 = Ajv04Module.default;
const ajv = new Ajv04({ allErrors: true, strict: false, validateFormats: true });
(addFormats as unknown as (a: InstanceType<typeof Ajv04>) => void)(ajv);
const validate = ajv.compile(schema);

interface Result {
  ruleId: string;
  partialFingerprints?: Record<string, string>;
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }>;
}
interface Log {
  $schema: string;
  runs: Array<{ originalUriBaseIds?: Record<string, { uri: string }>; results: Result[] }>;
}

/** Validates a log against the schema and the fingerprint contract; returns it typed. */
function checked(log: object, what: string): Log {
  const plain = JSON.parse(JSON.stringify(log)) as Log;
  expect(validate(plain), `${what}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
  expect(plain.$schema).toBe(SARIF_SCHEMA_URI);
  const prints = plain.runs[0]!.results.map((r) => r.partialFingerprints?.[FINGERPRINT_KEY]);
  for (const p of prints) expect(p, what).toMatch(/^[0-9a-f]{64}$/);
  expect(new Set(prints).size, `${what}: fingerprints are unique in a run`).toBe(prints.length);
  return plain;
}

const artifacts = (log: Log) => log.runs[0]!.results.map((r) => r.locations[0]!.physicalLocation.artifactLocation);
const printsOf = (log: Log) => log.runs[0]!.results.map((r) => r.partialFingerprints![FINGERPRINT_KEY]);

function documentRun(text: string, input: string, kind: 'a2a-card' | 'mcp-server-json'): CheckRun {
  if (kind === 'mcp-server-json') return { input, kind, scope: 'document', verdicts: [checkServerJson({ text }, ctxOf(input))], text };
  const { card, structure } = checkA2ACard({ text }, ctxOf(input));
  return { input, kind, scope: 'document', verdicts: [card, structure], text };
}

const corpusFiles = (dir: string): string[] =>
  HAVE_CORPUS
    ? readdirSync(join(CORPUS, dir))
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];

describe('the vendored SARIF 2.1.0 schema', () => {
  it('is the official file (sha256 as in schemas/sarif/SOURCES.md), identified as our logs say', () => {
    expect(createHash('sha256').update(readFileSync(SCHEMA_FILE)).digest('hex')).toBe(SCHEMA_SHA256);
    expect(schema.id).toBe(SARIF_SCHEMA_URI);
    expect(readFileSync(join(ROOT, 'schemas', 'sarif', 'SOURCES.md'), 'utf8')).toContain(SCHEMA_SHA256);
  });

  it('checks formats: an artifact URI with a raw space is refused', () => {
    const log = JSON.parse(JSON.stringify(renderSarif(documentRun('{"name": 1}', 'card.json', 'a2a-card')))) as Log;
    expect(validate(log)).toBe(true);
    log.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri = 'my card.json';
    expect(validate(log)).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('uri-reference');
  });
});

describe('check: every real card and server.json, and every fixture', () => {
  const kinds = [
    ...corpusFiles('a2a-cards').map((f) => ({ file: join(CORPUS, 'a2a-cards', f), name: f, kind: 'a2a-card' as const })),
    ...corpusFiles('a2a-compliance-examples').map((f) => ({
      file: join(CORPUS, 'a2a-compliance-examples', f),
      name: f,
      kind: 'a2a-card' as const,
    })),
    ...corpusFiles('mcp-server-json').map((f) => ({ file: join(CORPUS, 'mcp-server-json', f), name: f, kind: 'mcp-server-json' as const })),
  ];

  it.skipIf(!HAVE_CORPUS)('validates on the corpus, as given inside and outside the working directory', () => {
    expect(kinds.length).toBeGreaterThan(150);
    let results = 0;
    for (const [i, d] of kinds.entries()) {
      const text = readFileSync(d.file, 'utf8');
      // Alternately: a relative path with a space under the root, and the corpus file's own absolute path (outside the root).
      const input = i % 2 === 0 ? `owner cards/${d.name}` : d.file;
      const log = checked(renderSarif(documentRun(text, input, d.kind), undefined, { root: ROOT }), input);
      results += log.runs[0]!.results.length;
      for (const a of artifacts(log)) {
        if (i % 2 === 0) {
          expect(a).toEqual({ uri: `owner%20cards/${encodeURIComponent(d.name)}`, uriBaseId: SRCROOT });
          expect(log.runs[0]!.originalUriBaseIds).toEqual({ [SRCROOT]: { uri: `${fileUri(ROOT)}/` } });
        } else {
          expect(a).toEqual({ uri: fileUri(d.file) });
        }
      }
    }
    expect(results).toBeGreaterThan(200);
  });

  it('validates on every fixture, live observations included (their input a URL)', () => {
    for (const f of listFixtures()) {
      const live = f.startsWith('observations/');
      const j = judgeFixture(f);
      const text = live ? undefined : readFileSync(join(FIXTURES, f), 'utf8');
      const run: CheckRun = {
        input: live ? `https://agent.example.org/${f}` : join(ROOT, 'test', 'fixtures', 'conformance', f),
        kind: j.mcp ? 'mcp-server-json' : 'a2a-card',
        scope: live ? 'live' : 'document',
        verdicts: verdictsOf(j),
        uptime: j.uptime ?? null,
        text,
      };
      const log = checked(renderSarif(run, buildReport(run), { root: ROOT }), f);
      if (!live) for (const a of artifacts(log)) expect(a).toEqual({ uri: `test/fixtures/conformance/${f}`, uriBaseId: SRCROOT });
    }
  });

  it('fingerprints follow the finding, not the line, and stay put across runs', () => {
    const text =
      '{\n  "name": "Recipe Agent",\n  "url": "https://agent.acme-recipes.dev/a2a",\n  "skills": [{ "id": "a", "name": "A", "description": "d", "tags": [42, 43] }]\n}';
    const first = checked(renderSarif(documentRun(text, 'card.json', 'a2a-card'), undefined, { root: ROOT }), 'first');
    const again = checked(renderSarif(documentRun(text, 'card.json', 'a2a-card'), undefined, { root: ROOT }), 'again');
    const shifted = checked(renderSarif(documentRun(`\n\n${text}`, 'card.json', 'a2a-card'), undefined, { root: ROOT }), 'shifted');
    const moved = checked(renderSarif(documentRun(text, 'other.json', 'a2a-card'), undefined, { root: ROOT }), 'moved');
    expect(first.runs[0]!.results.length).toBeGreaterThan(1);
    expect(printsOf(again)).toEqual(printsOf(first));
    expect(printsOf(shifted)).toEqual(printsOf(first));
    expect(printsOf(moved).filter((p) => printsOf(first).includes(p))).toEqual([]);
  });
});

describe('artifact locations', () => {
  it('encodes, relates to the root, and leaves the outside absolute', () => {
    expect(localArtifact('a b/c#d?.json', { root: '/w/repo' })).toEqual({ uri: 'a%20b/c%23d%3F.json', uriBaseId: SRCROOT });
    expect(localArtifact('/w/repo/x/../y/card.json', { root: '/w/repo/' })).toEqual({ uri: 'y/card.json', uriBaseId: SRCROOT });
    expect(localArtifact('../elsewhere/card.json', { root: '/w/repo' })).toEqual({ uri: 'file:///w/elsewhere/card.json' });
    expect(localArtifact('/w/repository/card.json', { root: '/w/repo' })).toEqual({ uri: 'file:///w/repository/card.json' });
    expect(localArtifact('C:\\Users\\me\\my card.json')).toEqual({ uri: 'file:///C:/Users/me/my%20card.json' });
    expect(localArtifact('dir\\a:b.json')).toEqual({ uri: 'dir/a%3Ab.json' });
    expect(urlArtifact('https://agent.example.org/my agent/.well-known/agent-card.json#/skills/0')).toEqual({
      uri: 'https://agent.example.org/my%20agent/.well-known/agent-card.json#/skills/0',
    });
  });
});

describe('Agent Plugins packages', () => {
  it('validates for every fixture package, alone and as a set, inside the root', () => {
    const rel = 'test/fixtures/plugins';
    for (const group of readdirSync(PLUGIN_FIXTURES).sort()) {
      const set = checkPluginDirectory(join(rel, group), { rule: null, recursive: true });
      const log = checked(renderPluginSarif(set.report, { root: ROOT }), `${group} (set)`);
      for (const a of artifacts(log)) expect(a.uriBaseId === SRCROOT && a.uri.startsWith(`${rel}/${group}/`), JSON.stringify(a)).toBe(true);
      if (set.recursive) {
        for (const p of set.report.packages) checked(renderPluginSarif(p.report, { root: ROOT }), p.path);
      }
    }
  });
});

describe('inspect', () => {
  const AGENT = 'https://agent.example.org/my agents/one';
  const get = (url: string, status: number | null, body: string, type = 'application/json'): InspectExchange => ({
    step: 'a2a.card',
    method: 'GET',
    url,
    requestHeaders: { 'user-agent': 'VeronikAI-inspect/test', accept: 'application/json' },
    status,
    headers: status === null ? {} : { 'content-type': type },
    body,
    bodyTruncated: false,
    errorClass: status === null ? 'refused' : null,
    errorMessage: status === null ? 'connect ECONNREFUSED' : null,
    durationMs: 3,
  });
  const inspect = (exchanges: InspectExchange[], protocol: 'a2a' | 'mcp') =>
    buildInspectReport({
      input: `${AGENT}/`,
      protocol,
      inspected: [protocol],
      exchanges,
      credentialsSent: false,
      requests: exchanges.length,
      requestBudget: 40,
      timeLimitMs: 60_000,
      timedOut: false,
      budgetExhausted: false,
      startedAt: '2026-12-01T20:04:28.000Z',
      durationMs: 40,
      userAgent: 'VeronikAI-inspect/test',
    });

  it.skipIf(!HAVE_CORPUS)('validates on every real card served at a URL with a space', () => {
    let results = 0;
    for (const f of corpusFiles('a2a-cards')) {
      const text = readFileSync(join(CORPUS, 'a2a-cards', f), 'utf8');
      const r = inspect([get(`${AGENT}/.well-known/agent-card.json`, 200, text)], 'a2a');
      const log = checked(renderInspectSarif(r), f);
      results += log.runs[0]!.results.length;
      for (const a of artifacts(log)) expect(a.uri).not.toContain(' ');
    }
    expect(results).toBeGreaterThan(100);
  });

  it('validates when nothing answers, and when no card is found', () => {
    checked(renderInspectSarif(inspect([get(`${AGENT}/.well-known/agent-card.json`, null, '')], 'a2a')), 'refused');
    const log = checked(
      renderInspectSarif(
        inspect(
          [
            get(`${AGENT}/.well-known/agent-card.json`, 404, '<html></html>', 'text/html'),
            get(`${AGENT}/.well-known/agent.json`, 404, '', 'text/html'),
          ],
          'a2a',
        ),
      ),
      'not found',
    );
    expect(log.runs[0]!.results.map((r) => r.ruleId)).toEqual(['INS-GEN-001']);
  });
});
