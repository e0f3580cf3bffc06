import { checkCardText, checkCardValue, NOT_UTF8, readChain } from './a2a-card-suite.js';
import type { Basis, Family, Route } from './a2a-attribution.js';
import { structuralAnswer, type Violation } from './a2a-structure.js';
import { hashInputs, hashTextInputs } from './canonical-json.js';
import { FindingSink, ruleMask } from './findings.js';
import { isObject, parseJson } from './json-util.js';
import { checkServerJsonValue, declaredRemotes } from './mcp-quality.js';
import { checkTransport } from './mcp-transport.js';
import type { A2AObservation, DocumentText, Finding, McpObservation, Result } from './types.js';
import { classifyA2AUptime, classifyMcpUptime, type UptimeVerdict } from './uptime.js';
import { CHECKER_VERSION, SUITES, type SuiteKey } from './version.js';

export interface JudgeContext {
  /** What is judged: an agent key, a URL or a file name. */
  subject: string;
  /** When the inputs were observed (ISO 8601); the engine never reads a clock. */
  observedAt: string;
}

export interface A2AStructureDetail {
  route: Route;
  basis: Basis;
  family: Family | null;
  /** Schema version checked against (0.2.5 / 0.3.0 / 1.0.1), null for route none. */
  version: string | null;
  claimed: string | null;
  recognised: boolean | null;
  /** Pinned schema file, as named in every answer. */
  schema: string | null;
  schemaSha256: string | null;
  valid: boolean | null;
  violationCount: number;
  tolerantValid: boolean | null;
  alternative: {
    family: Family;
    version: string;
    schema: string;
    valid: boolean;
    violationCount: number;
    violations: Violation[];
  } | null;
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
 * that was not run (suite v2 has a quality half and a transport half): it adds an `n/a:` reason
 * line, so a signed verdict says what it did not judge, but never changes the result.
 */
interface VerdictState {
  unknown?: string;
  na?: string;
  notRun?: string;
}

/** Reason lines for the half of suite veronikai-mcp-conformance v2 that did not run. */
export const MCP_TRANSPORT_NOT_RUN = 'transport rules not run: no live GET';
export const MCP_QUALITY_NOT_RUN = 'quality rules not run: no server.json';

function build(
  suite: SuiteKey,
  ctx: JudgeContext,
  scope: Verdict['scope'],
  inputsHash: string,
  sink: FindingSink,
  state: VerdictState,
  extra?: { a2a?: A2AStructureDetail },
): Verdict {
  // Every flagged rule counts, listed or past the findings cap: a capped failure is still a failure.
  let result: Result;
  if (sink.hasFailure()) result = 'fail';
  else if (state.unknown) result = 'unknown';
  else if (state.na) result = 'n/a';
  else result = 'pass';
  // One pass over the findings: failures now, warnings (in order) after the state lines.
  const reasons: string[] = [];
  let warns: string[] | null = null;
  const list = sink.list;
  for (let i = 0; i < list.length; i++) {
    const f = list[i]!;
    if (f.severity === 'fail') reasons.push(`${f.ruleId} ${displayLocation(f)}: ${f.message}`);
    else if (f.severity === 'warn') (warns ??= []).push(`warn: ${f.ruleId} ${displayLocation(f)}: ${f.message}`);
  }
  if (sink.omitted > 0) reasons.push(`… ${sink.omitted} more findings not listed (${sink.unlistedRules().join(', ')})`);
  if (state.unknown) reasons.push(`unknown: ${state.unknown}`);
  if (state.na) reasons.push(`n/a: ${state.na}`);
  if (state.notRun) reasons.push(`n/a: ${state.notRun}`);
  if (warns !== null) for (let i = 0; i < warns.length; i++) reasons.push(warns[i]!);
  const v: Verdict = {
    subject: ctx.subject,
    observedAt: ctx.observedAt,
    checker: CHECKER_VERSION,
    suite: { id: SUITES[suite].id, version: SUITES[suite].version },
    result,
    reasons,
    findings: sink.list,
    omittedFindings: sink.omitted,
    rulesEvaluated: sink.evaluatedRules(),
    rulesFlagged: sink.flaggedRules(),
    scope,
    inputsHash,
  };
  if (extra?.a2a) v.a2a = extra.a2a;
  return v;
}

/** The spec reference of a structural finding: the pinned schema it was checked against. */
function structureSpec(s: { version: string; schema: string }): Finding['spec'] {
  return s.version === '1.0.1'
    ? { section: `A2A 1.0.1 a2a.proto (${s.schema})`, url: 'https://github.com/a2aproject/A2A/blob/v1.0.1/specification/a2a.proto' }
    : { section: `A2A ${s.version} JSON Schema (${s.schema})`, url: `https://a2a-protocol.org/v${s.version}/specification/#55-agentcard-object-structure` };
}

/** The spec texts of each pinned schema, built once (a card can have hundreds of violations); every finding gets its own copy. */
const SPEC_TEXTS = new Map<string, Finding['spec']>();
function structureSpecOf(s: { version: string; schema: string }): Finding['spec'] {
  // Each pinned schema file is of one version: the file names the pair.
  let spec = SPEC_TEXTS.get(s.schema);
  if (spec === undefined) SPEC_TEXTS.set(s.schema, (spec = structureSpec(s)));
  return spec;
}

const STRUCT_RULES = ruleMask('A2A-STRUCT-001', 'A2A-STRUCT-002', 'A2A-STRUCT-003', 'A2A-STRUCT-004', 'A2A-STRUCT-005');

function structureVerdict(doc: unknown, ctx: JudgeContext, scope: Verdict['scope'], inputsHash: string): Verdict {
  const sink = new FindingSink();
  const ans = structuralAnswer(doc);
  const a = ans.attribution;
  if (!ans.strict) {
    const detail: A2AStructureDetail = {
      route: a.route, basis: a.basis, family: null, version: null, claimed: null, recognised: null,
      schema: null, schemaSha256: null, valid: null, violationCount: 0, tolerantValid: null, alternative: null,
    };
    const why = isObject(doc) ? 'no recognised A2A claim (no @context, supportedInterfaces, protocolVersion or url)' : 'the card is not a JSON object';
    return build('a2aStructure', ctx, scope, inputsHash, sink, { na: why }, { a2a: detail });
  }
  sink.evaluateMask(STRUCT_RULES);
  const s = ans.strict;
  const spec = s.violations.length > 0 ? structureSpecOf(s) : null;
  for (const v of s.violations) sink.add(v.ruleId, 'document', v.pointer, v.message, { section: spec!.section, url: spec!.url });
  // Violations past the structural check's own cap never reach the sink as findings; count them
  // per rule, so a rule whose violations all fall past the cap is still flagged (and fails).
  // (None past the cap: every rule's count is its listed count, nothing to add.)
  if (s.violationCount > s.violations.length) {
    const listed: Partial<Record<Violation['ruleId'], number>> = {};
    for (const v of s.violations) listed[v.ruleId] = (listed[v.ruleId] ?? 0) + 1;
    for (const [id, n] of Object.entries(s.ruleCounts) as Array<[Violation['ruleId'], number]>) {
      sink.addUnlisted(id, n - (listed[id] ?? 0));
    }
  }
  if (a.route === 'conflict') {
    sink.add('A2A-STRUCT-004', 'document', '/protocolVersion', `supportedInterfaces (1.0 only) and a top-level protocolVersion (0.x only) are both present; checked as 1.0.1, the alternative reading (${a.alternative}) is reported beside it`);
  }
  if (a.recognised === false) {
    sink.add('A2A-STRUCT-005', 'document', a.basis === 'json-ld-context' ? '/@context' : '/protocolVersion', `version ${JSON.stringify(a.claimed)} is not a known A2A family; checked against the nearest (${s.version})`);
  }
  const alt = ans.alternative;
  const detail: A2AStructureDetail = {
    route: a.route,
    basis: a.basis,
    family: a.family,
    version: s.version,
    claimed: a.claimed,
    recognised: a.recognised,
    schema: s.schema,
    schemaSha256: s.schemaSha256,
    valid: s.valid,
    violationCount: s.violationCount,
    tolerantValid: ans.tolerantValid,
    alternative: alt && a.alternative
      ? { family: a.alternative, version: alt.version, schema: alt.schema, valid: alt.valid, violationCount: alt.violationCount, violations: alt.violations }
      : null,
  };
  return build('a2aStructure', ctx, scope, inputsHash, sink, {}, { a2a: detail });
}

/** An exchange's URL as a finding location; an ill-typed one (never from our producer) is ''. String() could throw on it. */
function urlText(url: unknown): string {
  return typeof url === 'string' ? url : '';
}

export interface A2ADocumentVerdicts {
  card: Verdict;
  structure: Verdict;
}

/** What is hashed of a document given as text: the flag only when it was not UTF-8, so every other hash stays as it was. */
function textInputs(kind: string, input: DocumentText): unknown {
  return input.validUtf8 === false ? { kind, text: input.text, validUtf8: false } : { kind, text: input.text };
}

/** hashInputs(textInputs(kind, input)), without building the object when the text is a string. */
function textHash(kind: string, input: DocumentText): string {
  try {
    const text = input.text;
    return typeof text === 'string' ? hashTextInputs(kind, text, input.validUtf8 === false) : hashInputs(textInputs(kind, input));
  } catch {
    return HASH_UNAVAILABLE;
  }
}

/**
 * Checks an A2A agent card given as text (preferred: parse failures are judged) or as a parsed
 * value. Text whose bytes were not valid UTF-8 (`validUtf8: false`) is not JSON text: A2A-CARD-003.
 */
export function checkA2ACard(input: DocumentText | { value: unknown }, ctx: JudgeContext): A2ADocumentVerdicts {
  const inputsHash = 'text' in input ? textHash('a2a-card-text', input) : safeHash(() => ({ kind: 'a2a-card-value', value: input.value }));
  return guardPair(() => {
    const sink = new FindingSink();
    let value: unknown;
    let parsed = true;
    let why: string | undefined;
    if ('text' in input) ({ value, parsed, why } = checkCardText(input.text, sink, input.validUtf8 !== false));
    else {
      value = input.value;
      checkCardValue(value, sink);
    }
    const card = build('a2aCard', ctx, 'document', inputsHash, sink, {});
    const structure = parsed
      ? structureVerdict(value, ctx, 'document', inputsHash)
      : build('a2aStructure', ctx, 'document', inputsHash, new FindingSink(), { na: why ?? 'the card does not parse as JSON' });
    return { card, structure };
  }, ctx, inputsHash, 'document');
}

/**
 * Checks a server.json given as text or value: the quality rules only (structure only, nothing
 * called). The verdict says so in an `n/a:` reason line (MCP_TRANSPORT_NOT_RUN): suite v2's
 * transport half did not run, so a pass here is never the whole suite's pass.
 */
export function checkServerJson(input: DocumentText | { value: unknown }, ctx: JudgeContext): Verdict {
  const inputsHash = 'text' in input ? textHash('mcp-server-json-text', input) : safeHash(() => ({ kind: 'mcp-server-json-value', value: input.value }));
  return guardOne(() => {
    const sink = new FindingSink();
    const state = { notRun: MCP_TRANSPORT_NOT_RUN };
    if ('text' in input) {
      const r = parseJson(input.text);
      if (!r.ok) {
        sink.add('MCP-Q-001', 'document', '', 'server.json does not parse as JSON');
        return build('mcp', ctx, 'document', inputsHash, sink, state);
      }
      if (input.validUtf8 === false) {
        sink.add('MCP-Q-001', 'document', '', `server.json is ${NOT_UTF8}`);
        return build('mcp', ctx, 'document', inputsHash, sink, state);
      }
      checkServerJsonValue(r.value, sink);
    } else checkServerJsonValue(input.value, sink);
    return build('mcp', ctx, 'document', inputsHash, sink, state);
  }, ctx, inputsHash, 'document');
}

export interface A2AObservationVerdicts extends A2ADocumentVerdicts {
  uptime: UptimeVerdict;
}

/** Judges a probe of the A2A card chain: uptime, suite veronikai-a2a-get-card v1, and the structural check. */
export function judgeA2AObservation(obs: A2AObservation, ctx: JudgeContext): A2AObservationVerdicts {
  const uptime = safeUptime(() => classifyA2AUptime(obs));
  const inputsHash = safeHash(() => ({ kind: 'a2a-observation', observation: obs }));
  const out = guardPair((): A2ADocumentVerdicts => {
    const sink = new FindingSink();
    const chain = readChain(obs);
    const none = (state: VerdictState): Verdict => build('a2aStructure', ctx, 'observation', inputsHash, new FindingSink(), state);
    switch (chain.kind) {
      case 'unknown':
        return { card: build('a2aCard', ctx, 'observation', inputsHash, sink, { unknown: chain.reason }), structure: none({ unknown: chain.reason }) };
      case 'truncated':
        return {
          card: build('a2aCard', ctx, 'observation', inputsHash, sink, { unknown: 'the card is larger than the read bound; not judged' }),
          structure: none({ unknown: 'the card is larger than the read bound; not judged' }),
        };
      case 'not-public': {
        sink.evaluate('A2A-CARD-001');
        sink.add('A2A-CARD-001', 'card-chain', urlText(chain.exchange.url), `agent card not public (HTTP ${chain.exchange.status})`);
        return { card: build('a2aCard', ctx, 'observation', inputsHash, sink, {}), structure: none({ na: 'agent card not public: no document to attribute' }) };
      }
      case 'no-card': {
        sink.evaluate('A2A-CARD-001', 'A2A-CARD-002');
        const last = obs.exchanges[obs.exchanges.length - 1];
        sink.add('A2A-CARD-002', 'card-chain', last ? urlText(last.url) : '', chain.reason);
        return { card: build('a2aCard', ctx, 'observation', inputsHash, sink, {}), structure: none({ na: 'no agent card: no document to attribute' }) };
      }
      case 'card': {
        sink.evaluate('A2A-CARD-001', 'A2A-CARD-002');
        const { value, parsed, why } = checkCardText(typeof chain.exchange.body === 'string' ? chain.exchange.body : '', sink, chain.exchange.bodyValidUtf8 !== false);
        const card = build('a2aCard', ctx, 'observation', inputsHash, sink, {});
        const structure = parsed ? structureVerdict(value, ctx, 'observation', inputsHash) : none({ na: why ?? 'the card does not parse as JSON' });
        return { card, structure };
      }
    }
  }, ctx, inputsHash, 'observation');
  return { uptime, ...out };
}

export interface McpObservationVerdict {
  uptime: UptimeVerdict;
  verdict: Verdict;
}

/**
 * Judges an MCP probe: uptime, and suite veronikai-mcp-conformance v2 (quality on server.json +
 * transport on the GET). Conformance is n/a when the listing has no server.json. Without a GET
 * (a static check) only the quality half runs, and the verdict says so (MCP_TRANSPORT_NOT_RUN).
 */
export function judgeMcpObservation(obs: McpObservation, ctx: JudgeContext): McpObservationVerdict {
  const uptime = safeUptime(() => classifyMcpUptime(obs));
  const inputsHash = safeHash(() => ({ kind: 'mcp-observation', observation: obs }));
  const verdict = guardOne(() => {
    const sink = new FindingSink();
    const doc = obs.serverJson;
    if (doc === null || doc === undefined) {
      return build('mcp', ctx, 'observation', inputsHash, sink, { na: 'no server.json (not listed in the official MCP Registry); uptime only' });
    }
    checkServerJsonValue(doc, sink);
    if (sink.has('MCP-Q-001')) return build('mcp', ctx, 'observation', inputsHash, sink, {});
    const t = checkTransport(obs, declaredRemotes(doc), sink);
    if (t.kind === 'not-run') return build('mcp', ctx, 'document', inputsHash, sink, { notRun: MCP_TRANSPORT_NOT_RUN });
    return build('mcp', ctx, 'observation', inputsHash, sink, t.kind === 'unknown' ? { unknown: t.reason } : {});
  }, ctx, inputsHash, 'observation');
  return { uptime, verdict };
}

/**
 * Transport rules alone, for an owner checking an endpoint URL without a server.json
 * (`veronikai check --kind mcp <url>`). The index itself records n/a for such listings. The
 * verdict says that suite v2's quality half did not run (MCP_QUALITY_NOT_RUN), so a pass here is
 * never the whole suite's pass.
 */
export function judgeMcpEndpoint(obs: McpObservation, ctx: JudgeContext): McpObservationVerdict {
  const uptime = safeUptime(() => classifyMcpUptime(obs));
  const inputsHash = safeHash(() => ({ kind: 'mcp-endpoint-observation', observation: obs }));
  const verdict = guardOne(() => {
    const sink = new FindingSink();
    const t = checkTransport(obs, [], sink);
    const state: VerdictState = { notRun: MCP_QUALITY_NOT_RUN };
    if (t.kind !== 'judged') state.unknown = t.reason;
    return build('mcp', ctx, 'observation', inputsHash, sink, state);
  }, ctx, inputsHash, 'observation');
  return { uptime, verdict };
}

// ---- defence in depth: the engine answers, it never throws ----

const HASH_UNAVAILABLE = 'sha256:unavailable';

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

function internalError(suite: SuiteKey, ctx: JudgeContext, err: unknown, inputsHash: string, scope: Verdict['scope']): Verdict {
  const name = err instanceof Error ? err.name : 'error';
  return build(suite, ctx, scope, inputsHash, new FindingSink(), { unknown: `internal error in the checker (${name}); please report it` });
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
    return { card: internalError('a2aCard', ctx, err, inputsHash, scope), structure: internalError('a2aStructure', ctx, err, inputsHash, scope) };
  }
}
