import { hasKey, isObject, own, sanitize } from '../core/json-util.js';

/**
 * A2A version attribution (docs/RULES.md, A2A version attribution), rules applied in this order:
 *
 * 1. a JSON-LD `@context` naming the A2A agent-card vocabulary reads as the version in that
 *    context (route `declared`, basis `json-ld-context`);
 * 2. a `supportedInterfaces` key (only 1.0 defines it) reads as 1.0 — `conflict` when the card
 *    also has a top-level `protocolVersion` key, else `inferred`;
 * 3. otherwise a top-level `protocolVersion` string reads as the version it names (`declared`);
 * 4. otherwise a top-level `url` key (how 0.x says where to reach an agent) reads as 0.3 (`inferred`);
 * 5. otherwise no recognised A2A claim (`none`): no verdict.
 *
 * Decisions the method leaves open (documented, and pinned by tests):
 * - Rules 2 and 4 look at key presence, whatever the value's type (a `url: 42` is still a 0.x
 *   claim, and its wrong type is then a violation). Rule 3 needs a string, as the method says; a
 *   non-string `protocolVersion` falls through to rule 4.
 * - Rule 1 recognises a context string (or a string item of a context array, or an object's
 *   `@vocab`) that mentions `a2a` and `agent-card`/`agentcard`, and reads its version from a
 *   `/v<digits>[.<digits>…]` path segment. A context that names the vocabulary but no version
 *   cannot be read and the rule falls through.
 * - Version families: 0.2.x → 0.2.5 schema, 0.3.x → 0.3.0, any 1.x → 1.0.1. A version string
 *   outside these falls to the NEAREST family in release order: a numeric 0.0/0.1 (or bare 0)
 *   → 0.2, 0.y with y ≥ 4 → 0.3, any major ≥ 2 → 1.0; a string with no leading number
 *   ("latest", "", "v") → 0.3, because a top-level protocolVersion exists only in the 0.x
 *   schemas and 0.3 is the last of them. Such a version is `recognised: false` and draws the
 *   warning A2A-STRUCT-005.
 * - The alternative version (the reading reported beside a conflict) of a 1.0 attribution is the declared top-level version's
 *   family when that is 0.x, else 0.3; of a 0.3 attribution by `url`, it is 1.0.
 */

export type Family = '0.2' | '0.3' | '1.0';
export type Route = 'declared' | 'conflict' | 'inferred' | 'none';
export type Basis = 'json-ld-context' | 'supported-interfaces' | 'protocol-version' | 'url' | 'none';

export interface VersionReading {
  family: Family;
  recognised: boolean;
}

export interface Attribution {
  route: Route;
  basis: Basis;
  /** The family the document is checked against; null for route `none`. */
  family: Family | null;
  /** The version text the document claims (from @context or protocolVersion), printable and bounded. */
  claimed: string | null;
  /** Whether `claimed` names a known family; null when nothing was claimed. */
  recognised: boolean | null;
  /** For inferred and conflict documents: the version not assigned. */
  alternative: Family | null;
}

const RECOGNISED = /^v?(\d+)(?:\.(\d+))?(?:\.\d+)?(?:[-+][0-9A-Za-z.+-]*)?$/i;
const LEADING = /^v?(\d+)(?:\.(\d+))?/i;

/** Maps a version string to its family (and whether it is one we recognise). */
export function readVersion(text: string): VersionReading {
  const s = text.trim();
  const m = RECOGNISED.exec(s);
  if (m) {
    const major = Number(m[1]);
    const minor = m[2] === undefined ? null : Number(m[2]);
    if (major === 0 && minor === 2) return { family: '0.2', recognised: true };
    if (major === 0 && minor === 3) return { family: '0.3', recognised: true };
    if (major === 1) return { family: '1.0', recognised: true };
  }
  const l = LEADING.exec(s);
  if (!l) return { family: '0.3', recognised: false };
  const major = Number(l[1]);
  const minor = l[2] === undefined ? 0 : Number(l[2]);
  if (major >= 1) return { family: '1.0', recognised: false };
  if (minor <= 2) return { family: '0.2', recognised: false };
  return { family: '0.3', recognised: false };
}

const CONTEXT_VERSION = /\/v(\d+(?:\.\d+){0,2})(?=[/#?.]|$)/i;

function contextCandidates(ctx: unknown): string[] {
  const out: string[] = [];
  const take = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (isObject(v)) {
      const vocab = own(v, '@vocab');
      if (typeof vocab === 'string') out.push(vocab);
    }
  };
  if (Array.isArray(ctx)) {
    const n = Math.min(ctx.length, 32);
    for (let i = 0; i < n; i++) take(ctx[i]);
  } else take(ctx);
  return out;
}

/** The version named by an A2A agent-card JSON-LD context, or null. */
export function contextVersion(ctx: unknown): string | null {
  for (const c of contextCandidates(ctx)) {
    if (c.length > 2048) continue;
    const lower = c.toLowerCase();
    if (!lower.includes('a2a') || !(lower.includes('agent-card') || lower.includes('agentcard'))) continue;
    const m = CONTEXT_VERSION.exec(c);
    if (m && m[1] !== undefined) return m[1];
  }
  return null;
}

const ALT_OF_1: Family = '0.3';

export function attribute(doc: unknown): Attribution {
  const none: Attribution = { route: 'none', basis: 'none', family: null, claimed: null, recognised: null, alternative: null };
  if (!isObject(doc)) return none;

  // Rule 1
  if (hasKey(doc, '@context')) {
    const v = contextVersion(own(doc, '@context'));
    if (v !== null) {
      const r = readVersion(v);
      return { route: 'declared', basis: 'json-ld-context', family: r.family, claimed: v, recognised: r.recognised, alternative: null };
    }
  }
  // Rule 2
  if (hasKey(doc, 'supportedInterfaces')) {
    if (hasKey(doc, 'protocolVersion')) {
      const pv = own(doc, 'protocolVersion');
      const r = typeof pv === 'string' ? readVersion(pv) : null;
      return {
        route: 'conflict',
        basis: 'supported-interfaces',
        family: '1.0',
        claimed: typeof pv === 'string' ? sanitize(pv, 64) : null,
        recognised: r ? r.recognised : null,
        alternative: r && r.family !== '1.0' ? r.family : ALT_OF_1,
      };
    }
    return { route: 'inferred', basis: 'supported-interfaces', family: '1.0', claimed: null, recognised: null, alternative: ALT_OF_1 };
  }
  // Rule 3
  const pv = own(doc, 'protocolVersion');
  if (typeof pv === 'string') {
    const r = readVersion(pv);
    return {
      route: 'declared',
      basis: 'protocol-version',
      family: r.family,
      claimed: sanitize(pv, 64),
      recognised: r.recognised,
      alternative: null,
    };
  }
  // Rule 4
  if (hasKey(doc, 'url')) {
    return { route: 'inferred', basis: 'url', family: '0.3', claimed: null, recognised: null, alternative: '1.0' };
  }
  // Rule 5
  return none;
}
