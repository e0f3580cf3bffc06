/**
 * The inspect report: the `protocols` summary (docs/RULES.md, suite veronikai-inspect), the checks with
 * their evidence, the findings (the checks that failed or warned, plus the findings of the
 * index's A2A suites run on the card), the result and exit code (as `check`: 0 pass, 1 a fail
 * rule, 2 could not complete), and its terminal and SARIF 2.1.0 renderings. Pure.
 */
import { getRule } from '../catalogue.js';
import { fingerprints, SARIF_SCHEMA_URI, SARIF_VERSION, urlArtifact } from '../sarif.js';
import type { Verdict } from '../verdict.js';
import { CHECKER_VERSION } from '../version.js';
import {
  judgeA2A,
  judgeMcp,
  PROTOCOL_DETECTED,
  type A2AJudgement,
  type A2ASummary,
  type McpJudgement,
  type McpSummary,
} from '../suites/inspect/index.js';
import { getInspectRule, INSPECT_SUITE } from './catalogue.js';
import type { InspectCheck } from './checks.js';
import type { InspectObservation, InspectProtocol } from './types.js';

export const INSPECT_REPORT_VERSION = 1;

export interface InspectFinding {
  ruleId: string;
  severity: 'fail' | 'warn';
  protocol: InspectProtocol | 'any';
  title: string;
  message: string;
  location: string;
  spec: { section: string; url: string };
  /** The check that produced it (null for the findings of the index's suites and INS-GEN-001). */
  check: string | null;
}

export interface InspectReport {
  reportVersion: typeof INSPECT_REPORT_VERSION;
  tool: { name: 'veronikai inspect'; checker: string; suite: { id: string; version: number }; userAgent: string };
  target: { input: string; protocol: 'auto' | InspectProtocol; inspected: InspectProtocol[]; credentialsSent: boolean };
  startedAt: string;
  durationMs: number;
  limits: { requests: number; requestBudget: number; budgetExhausted: boolean; timeLimitMs: number; timedOut: boolean };
  protocols: { mcp: McpSummary; a2a: A2ASummary };
  result: 'pass' | 'fail' | 'unknown';
  exitCode: 0 | 1 | 2;
  qualification: string;
  findings: InspectFinding[];
  checks: InspectCheck[];
  details: {
    mcp: McpJudgement['detail'] | null;
    a2a: (A2AJudgement['detail'] & { suites: Verdict[] }) | null;
  };
}

const EMPTY_MCP: McpSummary = { state: 'not_detected', era: null, toolsListStable: null, cacheMetadata: null, extensions: [], auth: null };
const EMPTY_A2A: A2ASummary = {
  state: 'not_detected',
  cardUrl: null,
  legacyPathOnly: false,
  secretsFound: 0,
  oidc: 'absent',
  skillsWithoutDescription: 0,
  securitySchemesDeclared: false,
};

function findingOfCheck(c: InspectCheck): InspectFinding | null {
  if ((c.outcome !== 'fail' && c.outcome !== 'warn') || c.ruleId === null) return null;
  const rule = getInspectRule(c.ruleId)!;
  return {
    ruleId: rule.id,
    severity: rule.severity,
    protocol: c.protocol,
    title: rule.title,
    message: c.message,
    location: c.location,
    spec: { section: rule.section, url: rule.link },
    check: c.id,
  };
}

export function buildInspectReport(obs: InspectObservation): InspectReport {
  const mcp = obs.inspected.includes('mcp') ? judgeMcp(obs.input, obs.exchanges) : null;
  const a2a = obs.inspected.includes('a2a') ? judgeA2A(obs.input, obs.exchanges, obs.startedAt) : null;
  const checks = [...(mcp?.checks ?? []), ...(a2a?.checks ?? [])];
  const findings: InspectFinding[] = checks.map(findingOfCheck).filter((f): f is InspectFinding => f !== null);
  for (const v of a2a?.suites ?? []) {
    for (const f of v.findings) {
      const rule = getRule(f.ruleId);
      findings.push({
        ruleId: f.ruleId,
        severity: f.severity,
        protocol: 'a2a',
        title: rule?.title ?? f.ruleId,
        message: f.message,
        location: f.artifact === 'document' ? `${a2a!.summary.cardUrl ?? ''}#${f.location}` : f.location,
        spec: f.spec,
        check: null,
      });
    }
  }
  const summaryMcp = mcp?.summary ?? EMPTY_MCP;
  const summaryA2a = a2a?.summary ?? EMPTY_A2A;
  const detected = (p: InspectProtocol): boolean => (p === 'mcp' ? summaryMcp.state : summaryA2a.state) !== 'not_detected';
  const anyAnswer = obs.exchanges.some((e) => e.status !== null);
  const stopped = obs.timedOut || obs.budgetExhausted;
  const noneDetected = !obs.inspected.some(detected);

  let incomplete: string | null = null;
  if (noneDetected && !anyAnswer)
    incomplete = `no request got an HTTP answer (${
      obs.exchanges
        .map((e) => e.errorMessage ?? e.errorClass)
        .filter(Boolean)
        .slice(0, 2)
        .join('; ') || 'nothing sent'
    })`;
  else if (stopped)
    incomplete = obs.timedOut
      ? `the time limit of ${obs.timeLimitMs} ms was reached`
      : `the request budget of ${obs.requestBudget} was used up`;

  const missing = PROTOCOL_DETECTED.check({ protocol: obs.protocol, inspected: obs.inspected, detected });
  if (missing.length > 0 && incomplete === null) {
    const rule = PROTOCOL_DETECTED;
    findings.unshift({
      ruleId: rule.id,
      severity: rule.severity,
      protocol: 'any',
      title: rule.title,
      message: `${missing.map((p) => p.toUpperCase()).join(' or ')} not detected at ${obs.input}`,
      location: obs.input,
      spec: { section: rule.section, url: rule.link },
      check: null,
    });
  }

  const failed = findings.some((f) => f.severity === 'fail');
  const result: InspectReport['result'] = failed ? 'fail' : incomplete !== null ? 'unknown' : 'pass';
  const exitCode: 0 | 1 | 2 = result === 'fail' ? 1 : result === 'unknown' ? 2 : 0;
  let qualification = `PASS is qualified: the protocol was spoken as a client would (JSON-RPC POSTs, GETs${summaryMcp.era === 'legacy' ? ', a session DELETE' : ''}); no tool was called${obs.credentialsSent ? "; the owner's credentials were sent to the named origin only" : '; no credential was sent'}; a pass never says the agent works or is good at its job.`;
  if (incomplete !== null) qualification = `${result === 'unknown' ? 'UNABLE TO COMPLETE' : 'INCOMPLETE'}: ${incomplete}. ${qualification}`;

  return {
    reportVersion: INSPECT_REPORT_VERSION,
    tool: { name: 'veronikai inspect', checker: CHECKER_VERSION, suite: { ...INSPECT_SUITE }, userAgent: obs.userAgent },
    target: { input: obs.input, protocol: obs.protocol, inspected: obs.inspected, credentialsSent: obs.credentialsSent },
    startedAt: obs.startedAt,
    durationMs: obs.durationMs,
    limits: {
      requests: obs.requests,
      requestBudget: obs.requestBudget,
      budgetExhausted: obs.budgetExhausted,
      timeLimitMs: obs.timeLimitMs,
      timedOut: obs.timedOut,
    },
    protocols: { mcp: summaryMcp, a2a: summaryA2a },
    result,
    exitCode,
    qualification,
    findings,
    checks,
    details: { mcp: mcp?.detail ?? null, a2a: a2a ? { ...a2a.detail, suites: a2a.suites } : null },
  };
}

// ---------------------------------------------------------------- terminal

const STATE_WORD = { not_detected: 'not detected', indicated: 'INDICATED (a signal, not validated)', confirmed: 'CONFIRMED' } as const;

function mcpLine(s: McpSummary): string {
  const parts: string[] = [STATE_WORD[s.state]];
  if (s.era) parts.push(`era ${s.era}`);
  if (s.toolsListStable !== null) parts.push(`tools/list ${s.toolsListStable ? 'stable' : 'UNSTABLE'}`);
  if (s.cacheMetadata !== null) parts.push(`cache metadata ${s.cacheMetadata ? 'yes' : 'no'}`);
  if (s.extensions.length) parts.push(`extensions ${s.extensions.join(', ')}`);
  if (s.auth)
    parts.push(
      `auth required; issuer ${s.auth.issuer ?? 'unknown'}; OIDC ${s.auth.openidConfiguration ? 'yes' : 'no'}, RFC 8414 ${s.auth.oauthMetadata ? 'yes' : 'no'}; registration ${s.auth.registration}`,
    );
  return parts.join(' · ');
}

function a2aLine(s: A2ASummary): string {
  const parts: string[] = [STATE_WORD[s.state]];
  if (s.cardUrl) parts.push(`card ${s.cardUrl}${s.legacyPathOnly ? ' (legacy path only)' : ''}`);
  if (s.state !== 'not_detected' && s.cardUrl) {
    parts.push(
      `secrets ${s.secretsFound}`,
      `OIDC ${s.oidc}`,
      `skills without description ${s.skillsWithoutDescription}`,
      `securitySchemes ${s.securitySchemesDeclared ? 'declared' : 'none'}`,
    );
  }
  return parts.join(' · ');
}

export function renderInspectTerminal(r: InspectReport): string {
  const L: string[] = [];
  L.push(`VeronikAI inspect - ${r.target.input}`);
  L.push(
    `${r.tool.suite.id} v${r.tool.suite.version} (${r.tool.checker}); ${r.limits.requests} of ${r.limits.requestBudget} request(s), ${(r.durationMs / 1000).toFixed(1)} s of ${(r.limits.timeLimitMs / 1000).toFixed(0)} s`,
  );
  L.push('');
  if (r.target.inspected.includes('mcp')) L.push(`MCP  ${mcpLine(r.protocols.mcp)}`);
  if (r.target.inspected.includes('a2a')) L.push(`A2A  ${a2aLine(r.protocols.a2a)}`);
  const groups: Array<[string, InspectFinding[]]> = [
    ['General', r.findings.filter((f) => f.protocol === 'any')],
    ['MCP', r.findings.filter((f) => f.protocol === 'mcp')],
    ['A2A', r.findings.filter((f) => f.protocol === 'a2a')],
  ];
  for (const [title, list] of groups) {
    if (list.length === 0) continue;
    L.push('', `${title} findings`);
    for (const f of list) {
      L.push(`  ${f.severity === 'fail' ? '✗ FAIL' : '! WARN'} ${f.ruleId} ${f.title}`);
      L.push(`    ${f.message}`);
      L.push(`    at ${f.location}`);
      const check = f.check ? r.checks.find((c) => c.id === f.check) : undefined;
      for (const e of check?.evidence.slice(0, 2) ?? []) {
        L.push(
          `    evidence: ${e.request.method} ${e.request.url} → ${e.status ?? e.errorClass ?? 'no answer'}${e.headers['content-type'] ? ` (${e.headers['content-type']})` : ''}${e.headers['www-authenticate'] ? ` WWW-Authenticate: ${e.headers['www-authenticate'].slice(0, 160)}` : ''}`,
        );
      }
      L.push(`    Spec: ${f.spec.section} ${f.spec.url}`);
    }
  }
  const passed = r.checks.filter((c) => c.outcome === 'pass').length;
  const fails = r.findings.filter((f) => f.severity === 'fail').length;
  const warns = r.findings.filter((f) => f.severity === 'warn').length;
  L.push('');
  const counts = `${passed} check(s) passed, ${fails} failure(s), ${warns} warning(s)`;
  if (r.result === 'pass') L.push(`✓ PASS - ${counts}.`, r.qualification);
  else if (r.result === 'fail') L.push(`✗ FAIL - ${counts}.`);
  else L.push(`? UNABLE TO COMPLETE - ${counts}.`, r.qualification);
  return L.join('\n') + '\n';
}

// ---------------------------------------------------------------- SARIF 2.1.0

export function renderInspectSarif(r: InspectReport): object {
  const ids = [...new Set(r.findings.map((f) => f.ruleId))];
  const rules = ids.map((id) => {
    const ins = getInspectRule(id);
    const base = ins ?? getRule(id);
    return {
      id,
      name: (base?.title ?? id).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : '')),
      shortDescription: { text: base?.title ?? id },
      fullDescription: { text: base?.description ?? id },
      helpUri: base?.link,
      help: { text: `${base?.description ?? ''} Spec: ${base?.section ?? ''} ${base?.link ?? ''}` },
      defaultConfiguration: { level: base?.severity === 'fail' ? 'error' : 'warning' },
      properties: { suite: ins ? INSPECT_SUITE.id : 'veronikai (check suites)', basis: base?.basis, needs: base?.needs },
    };
  });
  // A location is a URL, possibly with a JSON pointer as its fragment: the place is the whole of it.
  const artifacts = r.findings.map((f) => urlArtifact(f.location));
  const prints = fingerprints(r.findings.map((f, i) => ({ ruleId: f.ruleId, artifact: artifacts[i]!, place: f.check ?? '' })));
  return {
    $schema: SARIF_SCHEMA_URI,
    version: SARIF_VERSION,
    runs: [
      {
        tool: { driver: { name: 'VeronikAI inspect', version: r.tool.checker, rules } },
        invocations: [{ executionSuccessful: r.exitCode !== 2, exitCode: r.exitCode }],
        results: r.findings.map((f, i) => ({
          ruleId: f.ruleId,
          ruleIndex: ids.indexOf(f.ruleId),
          level: f.severity === 'fail' ? 'error' : 'warning',
          message: { text: `${f.message} (spec: ${f.spec.section} ${f.spec.url})` },
          locations: [{ physicalLocation: { artifactLocation: artifacts[i]! } }],
          partialFingerprints: prints[i]!,
          properties: { protocol: f.protocol, check: f.check },
        })),
        properties: { result: r.result, qualification: r.qualification, protocols: r.protocols },
      },
    ],
  };
}
