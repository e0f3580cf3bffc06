import { verdictRecorder, type VerdictRecorder } from './findings.js';
import { hashInputs } from '../core/canonical-json.js';
import { declaredRemotes } from './mcp-quality.js';
import { runRules } from './recorder.js';
import { RuleSet } from './rule.js';
import { A2A_CARD_RULES, readChain, type CardInput } from './suites/a2a/card/index.js';
import { A2A_STRUCTURE_RULES, type A2AStructureDetail, type StructureInput } from './suites/a2a/structure.js';
import { MCP_QUALITY_RULES, MCP_RULES, MCP_TRANSPORT_RULES, type McpInput } from './suites/mcp/index.js';
import type { A2AObservation, DocumentText, Finding, McpObservation, Result } from './types.js';
import { classifyA2AUptime, classifyMcpUptime, type UptimeVerdict } from './uptime.js';
import { CHECKER_VERSION, SUITES, type SuiteKey } from './version.js';

export type { A2AStructureDetail } from './suites/a2a/structure.js';

export interface JudgeContext {
  /** What is judged: an agent key, a URL or a file name. */
  subject: string;
  /** When the inputs were observed (ISO 8601); the engine never reads a clock. */
  observedAt: string;
}

export interface Verdict {
  subject: string;
  observedAt: string;
  checker: string;
  suite: { id: string; version: number };
  result: Result;
  /** Failures first (`RULE location: message`), then unknown / n/a reasons, then `warn:` lines. */
  reasons: string[];
  findings: Finding[];
  omittedFindings: number;
  /** Sorted IDs of the rules that were evaluated. */
  rulesEvaluated: string[];
  /**
   * Sorted IDs of the rules that produced at least one finding (fail or warn severity, as the
   * catalogue says), counting findings past the MAX_FINDINGS cap too: a rule whose findings are
   * all omitted is still flagged here. `result` and the report's per-rule outcome use this set,
   * never the listed findings alone.
   */
  rulesFlagged: string[];
  /** `document`: structure only, nothing called; `observation`: judged from live exchanges. */
  scope: 'document' | 'observation';
  inputsHash: string;
  a2a?: A2AStructureDetail;
}

export function displayLocation(f: Finding): string {
  return f.artifact === 'document' ? `#${f.location}` : f.location;
}

/**
 * `unknown` and `na` decide the result when no rule failed. `notRun` names a part of the suite
 * that was not run (the MCP suite has a quality half and a transport half): it adds an `n/a:` reason
 * line, so a signed verdict says what it did not judge, but never changes the result.
 */
interface VerdictState {
  unknown?: string;
  na?: string;
  notRun?: string;
}

/** Reason lines for the half of suite veronikai-mcp-conformance that did not run. */
export const MCP_TRANSPORT_NOT_RUN = 'transport rules not run: no live GET';
export const MCP_QUALITY_NOT_RUN = 'quality rules not run: no server.json';

function build(
  suite: SuiteKey,
  ctx: JudgeContext,
  scope: Verdict['scope'],
  inputsHash: string,
  rec: VerdictRecorder,
  state: VerdictState,
  extra?: { a2a?: A2AStructureDetail },
): Verdict {
  // Every flagged rule counts, listed or past the findings cap: a capped failure is still a failure.
  let result: Result;
  if (rec.hasFailure()) result = 'fail';
  else if (state.unknown) result = 'unknown';
  else if (state.na) result = 'n/a';
  else result = 'pass';
  // Failures first, then the state lines, then the warnings (in order).
  const fails = rec.findings.filter((f) => f.severity === 'fail');
  const warns = rec.findings.filter((f) => f.severity === 'warn');
  const reasons = fails.map((f) => `${f.ruleId} ${displayLocation(f)}: ${f.message}`);
  if (rec.omitted > 0) reasons.push(`… ${rec.omitted} more findings not listed (${rec.unlistedRules().join(', ')})`);
  if (state.unknown) reasons.push(`unknown: ${state.unknown}`);
  if (state.na) reasons.push(`n/a: ${state.na}`);
  if (state.notRun) reasons.push(`n/a: ${state.notRun}`);
  for (const f of warns) reasons.push(`warn: ${f.ruleId} ${displayLocation(f)}: ${f.message}`);
  const v: Verdict = {
    subject: ctx.subject,
    observedAt: ctx.observedAt,
    checker: CHECKER_VERSION,
    suite: { id: SUITES[suite].id, version: SUITES[suite].version },
    result,
    reasons,
    findings: rec.findings,
    omittedFindings: rec.omitted,
    rulesEvaluated: rec.evaluated(),
    rulesFlagged: rec.flagged(),
    scope,
    inputsHash,
  };
  if (extra?.a2a) v.a2a = extra.a2a;
  return v;
}

// Each verdict records the rules of its own suite.
const CARD_SET = new RuleSet(A2A_CARD_RULES);
const STRUCTURE_SET = new RuleSet(A2A_STRUCTURE_RULES);
const MCP_SET = new RuleSet(MCP_RULES);

/** A verdict of suite veronikai-a2a-structure on a parsed card. */
function structureVerdict(doc: unknown, ctx: JudgeContext, scope: Verdict['scope'], inputsHash: string): Verdict {
  const input: StructureInput = { rec: verdictRecorder(STRUCTURE_SET), doc };
  runRules(A2A_STRUCTURE_RULES, input, input.rec);
  return build('a2aStructure', ctx, scope, inputsHash, input.rec, input.na ? { na: input.na } : {}, { a2a: input.detail });
}

/** The card suite's verdict, and the structure verdict (n/a when the card is not JSON text). */
function cardVerdicts(input: CardInput, ctx: JudgeContext, scope: Verdict['scope'], inputsHash: string): A2ADocumentVerdicts {
  runRules(A2A_CARD_RULES, input, input.rec);
  const card = build('a2aCard', ctx, scope, inputsHash, input.rec, {});
  const structure = input.parsed
    ? structureVerdict(input.doc, ctx, scope, inputsHash)
    : build('a2aStructure', ctx, scope, inputsHash, verdictRecorder(STRUCTURE_SET), { na: input.why ?? 'the card does not parse as JSON' });
  return { card, structure };
}

function cardInput(text: string | null, validUtf8: boolean, doc: unknown = undefined): CardInput {
  return { rec: verdictRecorder(CARD_SET), chain: null, exchanges: [], text, validUtf8, doc, parsed: text === null };
}

function mcpInput(fields: Partial<Omit<McpInput, 'rec'>>): McpInput {
  return { rec: verdictRecorder(MCP_SET), text: null, validUtf8: true, doc: undefined, obs: null, declared: [], ...fields };
}

export interface A2ADocumentVerdicts {
  card: Verdict;
  structure: Verdict;
}

/** What is hashed of a document given as text: the flag only when it was not UTF-8, so every other hash stays as it was. */
function textInputs(kind: string, input: DocumentText): unknown {
  return input.validUtf8 === false ? { kind, text: input.text, validUtf8: false } : { kind, text: input.text };
}

/**
 * Checks an A2A agent card given as text (preferred: parse failures are judged) or as a parsed
 * value. Text whose bytes were not valid UTF-8 (`validUtf8: false`) is not JSON text: A2A-CARD-003.
 */
export function checkA2ACard(input: DocumentText | { value: unknown }, ctx: JudgeContext): A2ADocumentVerdicts {
  const inputsHash =
    'text' in input ? safeHash(() => textInputs('a2a-card-text', input)) : safeHash(() => ({ kind: 'a2a-card-value', value: input.value }));
  return guardPair(
    () => {
      const card = 'text' in input ? cardInput(input.text, input.validUtf8 !== false) : cardInput(null, true, input.value);
      return cardVerdicts(card, ctx, 'document', inputsHash);
    },
    ctx,
    inputsHash,
    'document',
  );
}

/**
 * Checks a server.json given as text or value: the quality rules only (structure only, nothing
 * called). The verdict says so in an `n/a:` reason line (MCP_TRANSPORT_NOT_RUN): the suite's
 * transport half did not run, so a pass here is never the whole suite's pass.
 */
export function checkServerJson(input: DocumentText | { value: unknown }, ctx: JudgeContext): Verdict {
  const inputsHash =
    'text' in input
      ? safeHash(() => textInputs('mcp-server-json-text', input))
      : safeHash(() => ({ kind: 'mcp-server-json-value', value: input.value }));
  return guardOne(
    () => {
      const mcp = 'text' in input ? mcpInput({ text: input.text, validUtf8: input.validUtf8 !== false }) : mcpInput({ doc: input.value });
      runRules(MCP_QUALITY_RULES, mcp, mcp.rec);
      return build('mcp', ctx, 'document', inputsHash, mcp.rec, { notRun: MCP_TRANSPORT_NOT_RUN });
    },
    ctx,
    inputsHash,
    'document',
  );
}

export interface A2AObservationVerdicts extends A2ADocumentVerdicts {
  uptime: UptimeVerdict;
}

/** Judges a probe of the A2A card chain: uptime, suite veronikai-a2a-get-card v1, and the structural check. */
export function judgeA2AObservation(obs: A2AObservation, ctx: JudgeContext): A2AObservationVerdicts {
  const uptime = safeUptime(() => classifyA2AUptime(obs));
  const inputsHash = safeHash(() => ({ kind: 'a2a-observation', observation: obs }));
  const out = guardPair(
    (): A2ADocumentVerdicts => {
      const chain = readChain(obs);
      if (chain.kind === 'unknown' || chain.kind === 'truncated') {
        const why = chain.kind === 'unknown' ? chain.reason : 'the card is larger than the read bound; not judged';
        return {
          card: build('a2aCard', ctx, 'observation', inputsHash, verdictRecorder(CARD_SET), { unknown: why }),
          structure: build('a2aStructure', ctx, 'observation', inputsHash, verdictRecorder(STRUCTURE_SET), { unknown: why }),
        };
      }
      const card = chain.kind === 'card' ? chain.exchange : null;
      const input = cardInput(typeof card?.body === 'string' ? card.body : '', card?.bodyValidUtf8 !== false);
      input.chain = chain;
      input.exchanges = obs.exchanges;
      // Without a card there is no document to attribute: the card chain's failure says why.
      if (chain.kind === 'not-public') input.why = 'agent card not public: no document to attribute';
      if (chain.kind === 'no-card') input.why = 'no agent card: no document to attribute';
      return cardVerdicts(input, ctx, 'observation', inputsHash);
    },
    ctx,
    inputsHash,
    'observation',
  );
  return { uptime, ...out };
}

export interface McpObservationVerdict {
  uptime: UptimeVerdict;
  verdict: Verdict;
}

/**
 * Judges an MCP probe: uptime, and suite veronikai-mcp-conformance (quality on server.json +
 * transport on the GET). Conformance is n/a when the listing has no server.json. Without a GET
 * (a static check) only the quality half runs, and the verdict says so (MCP_TRANSPORT_NOT_RUN).
 */
export function judgeMcpObservation(obs: McpObservation, ctx: JudgeContext): McpObservationVerdict {
  const uptime = safeUptime(() => classifyMcpUptime(obs));
  const inputsHash = safeHash(() => ({ kind: 'mcp-observation', observation: obs }));
  const verdict = guardOne(
    () => {
      const doc = obs.serverJson;
      if (doc === null || doc === undefined) {
        return build('mcp', ctx, 'observation', inputsHash, verdictRecorder(MCP_SET), {
          na: 'no server.json (not listed in the official MCP Registry); uptime only',
        });
      }
      const mcp = mcpInput({ doc, obs, declared: declaredRemotes(doc) });
      runRules(MCP_RULES, mcp, mcp.rec);
      const t = mcp.transport;
      if (t === undefined) return build('mcp', ctx, 'observation', inputsHash, mcp.rec, {}); // server.json is not an object
      if (t.kind === 'not-run') return build('mcp', ctx, 'document', inputsHash, mcp.rec, { notRun: MCP_TRANSPORT_NOT_RUN });
      return build('mcp', ctx, 'observation', inputsHash, mcp.rec, t.kind === 'unknown' ? { unknown: t.reason } : {});
    },
    ctx,
    inputsHash,
    'observation',
  );
  return { uptime, verdict };
}

/**
 * Transport rules alone, for an owner checking an endpoint URL without a server.json
 * (`veronikai check --kind mcp <url>`). The index itself records n/a for such listings. The
 * verdict says that the suite's quality half did not run (MCP_QUALITY_NOT_RUN), so a pass here is
 * never the whole suite's pass.
 */
export function judgeMcpEndpoint(obs: McpObservation, ctx: JudgeContext): McpObservationVerdict {
  const uptime = safeUptime(() => classifyMcpUptime(obs));
  const inputsHash = safeHash(() => ({ kind: 'mcp-endpoint-observation', observation: obs }));
  const verdict = guardOne(
    () => {
      const mcp = mcpInput({ obs });
      runRules(MCP_TRANSPORT_RULES, mcp, mcp.rec);
      const t = mcp.transport!;
      const state: VerdictState = { notRun: MCP_QUALITY_NOT_RUN };
      if (t.kind !== 'judged') state.unknown = t.reason;
      return build('mcp', ctx, 'observation', inputsHash, mcp.rec, state);
    },
    ctx,
    inputsHash,
    'observation',
  );
  return { uptime, verdict };
}

// ---- defence in depth: the engine answers, it never throws ----

const HASH_UNAVAILABLE = 'sha256:unavailable';
const SUITE_SETS = { a2aCard: CARD_SET, a2aStructure: STRUCTURE_SET, mcp: MCP_SET };

/**
 * The inputs hash, computed before (and outside) the guarded body, so a verdict for an internal
 * error still names the inputs it was given. Only inputs that cannot be hashed at all (a cycle,
 * a throwing getter) give `sha256:unavailable`.
 */
function safeHash(inputs: () => unknown): string {
  try {
    return hashInputs(inputs());
  } catch {
    return HASH_UNAVAILABLE;
  }
}

function safeUptime(f: () => UptimeVerdict): UptimeVerdict {
  try {
    return f();
  } catch {
    return { state: 'unknown', reason: 'internal error while classifying', ourSide: true, status: null };
  }
}

function internalError(
  suite: keyof typeof SUITE_SETS,
  ctx: JudgeContext,
  err: unknown,
  inputsHash: string,
  scope: Verdict['scope'],
): Verdict {
  const name = err instanceof Error ? err.name : 'error';
  return build(suite, ctx, scope, inputsHash, verdictRecorder(SUITE_SETS[suite]), {
    unknown: `internal error in the checker (${name}); please report it`,
  });
}

function guardOne(f: () => Verdict, ctx: JudgeContext, inputsHash: string, scope: Verdict['scope']): Verdict {
  try {
    return f();
  } catch (err) {
    return internalError('mcp', ctx, err, inputsHash, scope);
  }
}

function guardPair(f: () => A2ADocumentVerdicts, ctx: JudgeContext, inputsHash: string, scope: Verdict['scope']): A2ADocumentVerdicts {
  try {
    return f();
  } catch (err) {
    return {
      card: internalError('a2aCard', ctx, err, inputsHash, scope),
      structure: internalError('a2aStructure', ctx, err, inputsHash, scope),
    };
  }
}
