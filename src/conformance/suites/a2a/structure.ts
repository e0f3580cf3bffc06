import type { Basis, Family, Route } from '../../a2a-attribution.js';
import { structuralAnswer, type Violation } from '../../a2a-structure.js';
import { flag, type VerdictRecorder } from '../../findings.js';
import { isObject } from '../../../core/json-util.js';
import type { Rule } from '../../rule.js';
import type { Finding } from '../../types.js';
import { A2A_PROTO_101, CARD_OBJECT_101, card } from './spec.js';

/**
 * Suite veronikai-a2a-structure v1: required fields and their JSON types against the attributed
 * A2A version (a2a-structure.ts, a2a-attribution.ts; docs/RULES.md). The five rules are judged in
 * one pass, violation by violation, in the order the structural check found them.
 */

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

export interface StructureInput {
  rec: VerdictRecorder;
  /** The parsed card. */
  doc: unknown;
  /** Set by the check: the attribution and the answer in detail. */
  detail?: A2AStructureDetail;
  /** Set by the check when nothing could be judged, and why (the verdict is then n/a). */
  na?: string;
}

// The card must parse as a JSON object: the structure has nothing to read otherwise.
const NEEDS = ['A2A-CARD-003', 'A2A-CARD-004'];

export const REQUIRED: Rule<StructureInput> = {
  id: 'A2A-STRUCT-001',
  suite: 'a2aStructure',
  component: 'card',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: NEEDS,
  title: 'Required field present',
  description: "A field the attributed version marks required is missing (top level, skills[], provider, or the version's interface list).",
  ...card('§5.5 AgentCard object structure (1.0.1: a2a.proto field_behavior REQUIRED)', '#55-agentcard-object-structure'),
  check: checkStructure,
};

export const REQUIRED_TYPE: Rule<StructureInput> = {
  id: 'A2A-STRUCT-002',
  suite: 'a2aStructure',
  component: 'card',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: NEEDS,
  title: 'Required field has its JSON type',
  description: 'A required field is present with the wrong JSON type.',
  ...CARD_OBJECT_101,
  check: checkStructure,
};

export const ITEM_TYPE: Rule<StructureInput> = {
  id: 'A2A-STRUCT-003',
  suite: 'a2aStructure',
  component: 'card',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: NEEDS,
  title: 'List items have their JSON type',
  description: 'An item of a typed list (skills, tags, default modes, interfaces) has the wrong JSON type.',
  ...CARD_OBJECT_101,
  check: checkStructure,
};

export const CONSISTENT_CLAIM: Rule<StructureInput> = {
  id: 'A2A-STRUCT-004',
  suite: 'a2aStructure',
  component: 'card',
  severity: 'warn',
  basis: 'policy',
  needs: 'document',
  prerequisites: NEEDS,
  title: 'Consistent version claim',
  description:
    'The card has supportedInterfaces (1.0 only) and a top-level protocolVersion (0.x only): attributed 1.0 by conflict; the verdict under the declared version is given beside it.',
  section: 'A2A 1.0.1 AgentCard (top-level protocolVersion removed)',
  link: A2A_PROTO_101,
  check: checkStructure,
};

export const KNOWN_VERSION: Rule<StructureInput> = {
  id: 'A2A-STRUCT-005',
  suite: 'a2aStructure',
  component: 'card',
  severity: 'warn',
  basis: 'policy',
  needs: 'document',
  prerequisites: NEEDS,
  title: 'Recognised protocol version',
  description: 'The declared version names no known A2A family (0.2.x, 0.3.x, 1.x); the card was checked against the nearest family.',
  ...card('§5.5 AgentCard.protocolVersion', '#55-agentcard-object-structure'),
  check: checkStructure,
};

export const A2A_STRUCTURE_RULES: ReadonlyArray<Rule<StructureInput>> = [
  REQUIRED,
  REQUIRED_TYPE,
  ITEM_TYPE,
  CONSISTENT_CLAIM,
  KNOWN_VERSION,
];

const OF_VIOLATION: Record<Violation['ruleId'], Rule<StructureInput>> = {
  'A2A-STRUCT-001': REQUIRED,
  'A2A-STRUCT-002': REQUIRED_TYPE,
  'A2A-STRUCT-003': ITEM_TYPE,
};

/** The spec reference of a structural finding: the pinned schema it was checked against. */
function structureSpec(s: { version: string; schema: string }): Finding['spec'] {
  return s.version === '1.0.1'
    ? { section: `A2A 1.0.1 a2a.proto (${s.schema})`, url: A2A_PROTO_101 }
    : {
        section: `A2A ${s.version} JSON Schema (${s.schema})`,
        url: `https://a2a-protocol.org/v${s.version}/specification/#55-agentcard-object-structure`,
      };
}

const NO_DETAIL = {
  family: null,
  version: null,
  claimed: null,
  recognised: null,
  schema: null,
  schemaSha256: null,
  valid: null,
  violationCount: 0,
  tolerantValid: null,
  alternative: null,
} as const;

function checkStructure(input: StructureInput): void {
  const { rec, doc } = input;
  const ans = structuralAnswer(doc);
  const a = ans.attribution;
  const s = ans.strict;
  if (!s) {
    input.detail = { route: a.route, basis: a.basis, ...NO_DETAIL };
    input.na = isObject(doc)
      ? 'no recognised A2A claim (no @context, supportedInterfaces, protocolVersion or url)'
      : 'the card is not a JSON object';
    return;
  }
  rec.pass(...A2A_STRUCTURE_RULES);
  if (s.violations.length > 0) {
    const spec = structureSpec(s);
    for (const v of s.violations)
      flag(rec, OF_VIOLATION[v.ruleId], 'document', v.pointer, v.message, { section: spec.section, url: spec.url });
  }
  // Violations past the structural check's own cap never become findings; counted per rule, a
  // rule whose violations all fall past the cap is still flagged (and fails).
  if (s.violationCount > s.violations.length) {
    const listed: Partial<Record<Violation['ruleId'], number>> = {};
    for (const v of s.violations) listed[v.ruleId] = (listed[v.ruleId] ?? 0) + 1;
    for (const [id, n] of Object.entries(s.ruleCounts) as Array<[Violation['ruleId'], number]>)
      rec.failUnlisted(OF_VIOLATION[id], n - (listed[id] ?? 0));
  }
  if (a.route === 'conflict') {
    flag(
      rec,
      CONSISTENT_CLAIM,
      'document',
      '/protocolVersion',
      `supportedInterfaces (1.0 only) and a top-level protocolVersion (0.x only) are both present; checked as 1.0.1, the alternative reading (${a.alternative}) is reported beside it`,
    );
  }
  if (a.recognised === false) {
    flag(
      rec,
      KNOWN_VERSION,
      'document',
      a.basis === 'json-ld-context' ? '/@context' : '/protocolVersion',
      `version ${JSON.stringify(a.claimed)} is not a known A2A family; checked against the nearest (${s.version})`,
    );
  }
  const alt = ans.alternative;
  input.detail = {
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
    alternative:
      alt && a.alternative
        ? {
            family: a.alternative,
            version: alt.version,
            schema: alt.schema,
            valid: alt.valid,
            violationCount: alt.violationCount,
            violations: alt.violations,
          }
        : null,
  };
}
