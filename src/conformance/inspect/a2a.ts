/**
 * The A2A half of an inspect: find the card (the URL given when it names a .json document, then
 * /.well-known/agent-card.json, then the legacy /.well-known/agent.json), judge it with the
 * suites the index uses (veronikai-a2a-get-card and the seed 001 structural check with its
 * version attribution), and lint it: skills and their descriptions, default modes, declared
 * security schemes, embedded secrets, and whether every openIdConnectUrl resolves.
 */
import { attribute } from '../a2a-attribution.js';
import { isObject, isNonEmptyString, own, parseJson, ptr, type JsonObject } from '../json-util.js';
import { classifyHost } from '../private-host.js';
import { checkA2ACard, type Verdict } from '../verdict.js';
import { CheckList, type InspectCheck } from './checks.js';
import { findSecrets, type SecretMatch } from './secrets.js';
import type { DetectionState, InspectExchange } from './types.js';

export interface A2ASummary {
  state: DetectionState;
  cardUrl: string | null;
  legacyPathOnly: boolean;
  secretsFound: number;
  oidc: 'resolves' | 'dead' | 'absent';
  skillsWithoutDescription: number;
  securitySchemesDeclared: boolean;
}

export interface A2AJudgement {
  summary: A2ASummary;
  checks: InspectCheck[];
  /** The index's suites on the card (veronikai-a2a-get-card, veronikai-a2a-structure). */
  suites: Verdict[];
  detail: { attribution: ReturnType<typeof attribute> | null; secrets: SecretMatch[]; openIdConnectUrls: string[] };
}

export const CURRENT_PATH = '/.well-known/agent-card.json';
export const LEGACY_PATH = '/.well-known/agent.json';

/** Where the card is looked for, in order. */
export function cardCandidates(input: string): string[] {
  let u: URL;
  try {
    u = new URL(input);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (/\.json$/i.test(u.pathname) && u.pathname !== CURRENT_PATH && u.pathname !== LEGACY_PATH) out.push(u.href);
  out.push(`${u.origin}${CURRENT_PATH}`, `${u.origin}${LEGACY_PATH}`);
  return out;
}

/** Every `openIdConnectUrl` string under securitySchemes (0.x flat objects and 1.0's oneof wrappers), at most 8. */
export function openIdConnectUrls(card: unknown): string[] {
  if (!isObject(card)) return [];
  const out: string[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (depth > 4 || out.length >= 8) return;
    if (Array.isArray(v)) for (const x of v.slice(0, 50)) visit(x, depth + 1);
    else if (isObject(v)) {
      for (const [k, x] of Object.entries(v).slice(0, 50)) {
        if ((k === 'openIdConnectUrl' || k === 'open_id_connect_url') && typeof x === 'string' && x !== '') {
          if (!out.includes(x)) out.push(x);
        } else visit(x, depth + 1);
      }
    }
  };
  visit(own(card, 'securitySchemes'), 0);
  return out;
}

/** The card's endpoint URLs (0.x url, additionalInterfaces; 1.0 supportedInterfaces). */
function endpointUrls(card: JsonObject): string[] {
  const out: string[] = [];
  const url = own(card, 'url');
  if (typeof url === 'string') out.push(url);
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    const list = own(card, key);
    if (Array.isArray(list)) for (const i of list.slice(0, 50)) if (isObject(i) && typeof i.url === 'string') out.push(i.url);
  }
  return out;
}

/** A production-shaped card: an https endpoint on a public, non-placeholder host. */
function productionShaped(card: JsonObject): boolean {
  return endpointUrls(card).some((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'https:' && classifyHost(u.hostname) === null;
    } catch {
      return false;
    }
  });
}

export interface LintResult {
  skillsWithoutDescription: number;
  securitySchemesDeclared: boolean;
  secrets: SecretMatch[];
}

/**
 * The document rules of the lint (INS-A2A-002 … 007) on a card's text; `value` is the parsed
 * card (a JSON object). `where` is the card's URL or file name, for the check locations.
 * `evidence` is the fetch the card came from, attached to every check; it is empty only when
 * the card was read from a file (the corpus run), where no exchange exists.
 */
export function lintCard(text: string, value: JsonObject, where: string, checks: CheckList, evidence: InspectExchange[] = []): LintResult {
  const at = (pointer: string): string => `${where}#${pointer}`;
  const skills = own(value, 'skills');
  let skillsWithoutDescription = 0;
  if (!Array.isArray(skills) || skills.length === 0) {
    checks.flag('INS-A2A-002', 'skills', skills === undefined ? 'the card has no skills list' : Array.isArray(skills) ? 'the skills list is empty' : 'skills is not a list', at('/skills'), evidence);
  } else {
    checks.pass('skills', 'INS-A2A-002', `${skills.length} skill(s)`, at('/skills'), evidence);
    const undescribed: string[] = [];
    skills.forEach((s, i) => {
      if (!isObject(s) || !isNonEmptyString(own(s, 'description'))) {
        skillsWithoutDescription++;
        if (undescribed.length < 10) undescribed.push(isObject(s) && typeof s.id === 'string' ? `${i} (${s.id.slice(0, 60)})` : String(i));
      }
    });
    if (skillsWithoutDescription > 0) checks.flag('INS-A2A-003', 'skill descriptions', `${skillsWithoutDescription} skill(s) without a description: ${undescribed.join(', ')}`, at('/skills'), evidence);
    else checks.pass('skill descriptions', 'INS-A2A-003', 'every skill has a description', at('/skills'), evidence);
  }
  for (const [id, key] of [
    ['INS-A2A-004', 'defaultInputModes'],
    ['INS-A2A-005', 'defaultOutputModes'],
  ] as const) {
    const v = own(value, key);
    if (!Array.isArray(v) || v.length === 0) checks.flag(id, key, v === undefined ? `${key} is missing` : Array.isArray(v) ? `${key} is empty` : `${key} is not a list`, at(ptr(key)), evidence);
    else checks.pass(key, id, `${key}: ${v.slice(0, 5).map(String).join(', ')}`, at(ptr(key)), evidence);
  }
  const schemes = own(value, 'securitySchemes');
  const securitySchemesDeclared = isObject(schemes) && Object.keys(schemes).length > 0;
  if (securitySchemesDeclared) checks.pass('security schemes', 'INS-A2A-006', `securitySchemes: ${Object.keys(schemes).slice(0, 5).join(', ')}`, at('/securitySchemes'), evidence);
  else if (productionShaped(value)) checks.flag('INS-A2A-006', 'security schemes', 'a card with a public https endpoint declares no securitySchemes', at('/securitySchemes'), evidence);
  else checks.info('security schemes', 'no securitySchemes (the card has no public https endpoint, so it is not flagged)', at('/securitySchemes'), evidence);

  const secrets = findSecrets(text);
  if (secrets.length > 0) {
    for (const s of secrets.slice(0, 10)) checks.flag('INS-A2A-007', 'embedded secret', `${s.kind} in the card text at character ${s.offset}: ${s.redacted} (entropy ${s.entropy} bits/char)`, where, evidence);
  } else checks.pass('embedded secret', 'INS-A2A-007', 'no credential-shaped string in the card text', where, evidence);
  return { skillsWithoutDescription, securitySchemesDeclared, secrets };
}

function cardDoc(ex: InspectExchange): JsonObject | null {
  if (ex.status !== 200) return null;
  const r = parseJson(ex.body);
  return r.ok && isObject(r.value) ? r.value : null;
}

/** A JSON object that reads as an agent card: an A2A version claim, or a name with skills or an endpoint. */
function cardLike(v: JsonObject): boolean {
  return attribute(v).route !== 'none' || (typeof v.name === 'string' && ('skills' in v || 'supportedInterfaces' in v));
}

function oidcResolves(ex: InspectExchange | undefined): { ok: boolean; why: string } {
  if (!ex) return { ok: false, why: 'not fetched (the budget or time ran out)' };
  if (ex.status !== 200) return { ok: false, why: ex.status === null ? `no answer (${ex.errorClass ?? 'error'})` : `HTTP ${ex.status}` };
  const r = parseJson(ex.body);
  if (!r.ok || !isObject(r.value)) return { ok: false, why: 'the answer is not a JSON object' };
  if (typeof r.value.issuer === 'string' || typeof r.value.authorization_endpoint === 'string') return { ok: true, why: `issuer ${String(r.value.issuer ?? '')}`.trim() };
  return { ok: false, why: 'the JSON has neither issuer nor authorization_endpoint' };
}

export function judgeA2A(input: string, all: InspectExchange[], observedAt: string): A2AJudgement {
  const checks = new CheckList('a2a');
  const summary: A2ASummary = { state: 'not_detected', cardUrl: null, legacyPathOnly: false, secretsFound: 0, oidc: 'absent', skillsWithoutDescription: 0, securitySchemesDeclared: false };
  const detail: A2AJudgement['detail'] = { attribution: null, secrets: [], openIdConnectUrls: [] };
  const tries = all.filter((e) => e.step === 'a2a.card');
  const hit = tries.find((e) => {
    const d = cardDoc(e);
    return d !== null && cardLike(d);
  });
  if (!hit) {
    const closed = tries.find((e) => e.status === 401 || e.status === 403);
    if (closed) {
      summary.state = 'indicated';
      checks.info('agent card', `the card URL answered HTTP ${closed.status}: a card may be there, but it is not public`, closed.url, [closed]);
    } else {
      checks.info('agent card', `no agent card: ${tries.map((e) => `${e.url} (${e.status ?? e.errorClass})`).join(', ') || 'nothing fetched'}`, input, tries);
    }
    return { summary, checks: checks.list, suites: [], detail };
  }
  const value = cardDoc(hit)!;
  summary.cardUrl = hit.url;
  const path = new URL(hit.url).pathname;
  const current = tries.find((e) => new URL(e.url).pathname === CURRENT_PATH);
  summary.legacyPathOnly = path === LEGACY_PATH && !(current && cardDoc(current));
  if (summary.legacyPathOnly) checks.flag('INS-A2A-001', 'well-known path', `the card is served only at ${LEGACY_PATH}; ${CURRENT_PATH} answered ${current ? (current.status ?? current.errorClass) : 'nothing'}`, hit.url, [current, hit]);
  else checks.pass('well-known path', 'INS-A2A-001', `card at ${hit.url}`, hit.url, [hit]);

  // The index's suites on the same text, with the version attribution of seed 001.
  const { card, structure } = checkA2ACard({ text: hit.body }, { subject: hit.url, observedAt });
  detail.attribution = attribute(value);
  const lint = lintCard(hit.body, value, hit.url, checks, [hit]);
  summary.skillsWithoutDescription = lint.skillsWithoutDescription;
  summary.securitySchemesDeclared = lint.securitySchemesDeclared;
  summary.secretsFound = lint.secrets.length;
  detail.secrets = lint.secrets;

  // Every declared openIdConnectUrl, fetched (the producer tagged each fetch with the declared URL in `form`).
  const urls = openIdConnectUrls(value);
  detail.openIdConnectUrls = urls;
  if (urls.length > 0) {
    let dead = false;
    for (const u of urls) {
      const fetched = all.filter((e) => e.step === 'a2a.oidc' && e.form === u);
      const last = fetched[fetched.length - 1];
      const r = oidcResolves(last);
      if (r.ok) checks.pass('openIdConnectUrl', 'INS-A2A-008', `${u} resolves (${r.why})`, u, fetched);
      else {
        dead = true;
        checks.flag('INS-A2A-008', 'openIdConnectUrl', `${u} does not resolve to an OpenID configuration: ${r.why}`, u, fetched);
      }
    }
    summary.oidc = dead ? 'dead' : 'resolves';
  }

  summary.state = detail.attribution.route !== 'none' && structure.result === 'pass' && card.result !== 'fail' ? 'confirmed' : 'indicated';
  checks.info('validation', `attribution: ${detail.attribution.route}${detail.attribution.family ? ` (A2A ${detail.attribution.family})` : ''}; ${card.suite.id}: ${card.result}; ${structure.suite.id}: ${structure.result}`, hit.url, [hit]);
  return { summary, checks: checks.list, suites: [card, structure], detail };
}
