import { attribute, type Attribution, type Family } from './a2a-attribution.js';
import { escapePointer, isObject, jsonType, own, type JsonObject } from '../core/json-util.js';

/**
 * Required-field structural conformance against the attributed A2A version (docs/RULES.md,
 * suite veronikai-a2a-structure).
 *
 * Checked: presence and JSON type of every field the version's schema marks required, at the
 * top level, inside skills[] (tags is a list of strings, items checked), inside provider, and
 * inside the version's interface list (0.x: additionalInterfaces when it is a list; 1.0:
 * supportedInterfaces). Items of typed lists are checked too (defaultInputModes,
 * defaultOutputModes, tags: strings; skills and interfaces: objects).
 * Not checked: URL formats, enumerations, security schemes, signatures, reachability, and the
 * type of any optional field (provider or additionalInterfaces of the wrong container type
 * are left alone; their contents are checked only when the container has the right type).
 *
 * The tables below are transcribed from the pinned files named in `SCHEMAS`; a test compares
 * them with the vendored files under schemas/protocol/a2a/ so they cannot drift.
 */

type FieldType = 'string' | 'object' | 'array<string>' | 'array<object>';
type Table = ReadonlyArray<readonly [name: string, type: FieldType]>;

export interface VersionSchema {
  family: Family;
  version: '0.2.5' | '0.3.0' | '1.0.1';
  /** Path of the pinned schema file in this repository. */
  file: string;
  sha256: string;
  card: Table;
  skill: Table;
  provider: Table;
  /** Name of the interface list and the required fields of its items. */
  interfaces: { key: string; required: boolean; fields: Table };
  defs: { card: string; skill: string; provider: string; iface: string };
}

const CARD_0X: Table = [
  ['name', 'string'],
  ['description', 'string'],
  ['url', 'string'],
  ['version', 'string'],
  ['protocolVersion', 'string'],
  ['capabilities', 'object'],
  ['defaultInputModes', 'array<string>'],
  ['defaultOutputModes', 'array<string>'],
  ['skills', 'array<object>'],
];
const SKILL: Table = [
  ['id', 'string'],
  ['name', 'string'],
  ['description', 'string'],
  ['tags', 'array<string>'],
];
const PROVIDER: Table = [
  ['organization', 'string'],
  ['url', 'string'],
];
const IFACE_0X: Table = [
  ['url', 'string'],
  ['transport', 'string'],
];
const CARD_10: Table = [
  ['name', 'string'],
  ['description', 'string'],
  ['supportedInterfaces', 'array<object>'],
  ['version', 'string'],
  ['capabilities', 'object'],
  ['defaultInputModes', 'array<string>'],
  ['defaultOutputModes', 'array<string>'],
  ['skills', 'array<object>'],
];
const IFACE_10: Table = [
  ['url', 'string'],
  ['protocolBinding', 'string'],
  ['protocolVersion', 'string'],
];

const JSON_DEFS = { card: 'AgentCard', skill: 'AgentSkill', provider: 'AgentProvider', iface: 'AgentInterface' };

export const SCHEMAS: Record<Family, VersionSchema> = {
  '0.2': {
    family: '0.2',
    version: '0.2.5',
    file: 'schemas/protocol/a2a/0.2.5/a2a.json',
    sha256: 'c2514a8891d37a8d56665f5ca785b1ce0c99a70003155699ebbc98369c80ed28',
    card: CARD_0X,
    skill: SKILL,
    provider: PROVIDER,
    interfaces: { key: 'additionalInterfaces', required: false, fields: IFACE_0X },
    defs: JSON_DEFS,
  },
  '0.3': {
    family: '0.3',
    version: '0.3.0',
    file: 'schemas/protocol/a2a/0.3.0/a2a.json',
    sha256: '97d6e2435336836cd1d41dffacf83a1a97902b62b826ef14ec5704db85c95f17',
    card: CARD_0X,
    skill: SKILL,
    provider: PROVIDER,
    interfaces: { key: 'additionalInterfaces', required: false, fields: IFACE_0X },
    defs: JSON_DEFS,
  },
  '1.0': {
    family: '1.0',
    version: '1.0.1',
    file: 'schemas/protocol/a2a/1.0.1/a2a.proto',
    sha256: 'e195bf96ab630c69797851970203e1b2b6b19528f2e9803b7d904b91a5104016',
    card: CARD_10,
    skill: SKILL,
    provider: PROVIDER,
    interfaces: { key: 'supportedInterfaces', required: true, fields: IFACE_10 },
    defs: JSON_DEFS,
  },
};

export type ViolationKind = 'missing' | 'type' | 'item-type';

export interface Violation {
  ruleId: 'A2A-STRUCT-001' | 'A2A-STRUCT-002' | 'A2A-STRUCT-003';
  kind: ViolationKind;
  /** JSON pointer of the missing or wrongly typed value. */
  pointer: string;
  message: string;
}

/** At most this many violations are listed; `violationCount` always has the full count. */
export const MAX_VIOLATIONS = 200;

export interface StructureResult {
  version: VersionSchema['version'];
  schema: string;
  schemaSha256: string;
  valid: boolean;
  violations: Violation[];
  violationCount: number;
  /**
   * Violations per rule, counting every one (listed or past MAX_VIOLATIONS), so a rule whose
   * violations all fall past the cap is still known to have failed.
   */
  ruleCounts: Partial<Record<Violation['ruleId'], number>>;
  /** True when the only violation is a missing top-level protocolVersion. */
  onlyMissingProtocolVersion: boolean;
}

class Acc {
  readonly list: Violation[] = [];
  count = 0;
  readonly ruleCounts: Partial<Record<Violation['ruleId'], number>> = {};
  missingPV = false;
  constructor(readonly s: VersionSchema) {}
  push(v: Violation): void {
    this.count++;
    this.ruleCounts[v.ruleId] = (this.ruleCounts[v.ruleId] ?? 0) + 1;
    if (v.kind === 'missing' && v.pointer === '/protocolVersion') this.missingPV = true;
    if (this.list.length < MAX_VIOLATIONS) this.list.push(v);
  }
}

function typeOk(v: unknown, t: FieldType): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'object':
      return isObject(v);
    default:
      return Array.isArray(v);
  }
}

const TYPE_WORD: Record<FieldType, string> = {
  string: 'a string',
  object: 'an object',
  'array<string>': 'a list of strings',
  'array<object>': 'a list of objects',
};

// Pointers and the "(def, version)" suffix are built only for a violation: a valid card builds none.
function checkFields(acc: Acc, obj: JsonObject, table: Table, base: string, def: string): void {
  for (const [name, type] of table) {
    const v = own(obj, name);
    if (v === undefined) {
      acc.push({
        ruleId: 'A2A-STRUCT-001',
        kind: 'missing',
        pointer: `${base}/${escapePointer(name)}`,
        message: `required field ${name} is missing (${def}, A2A ${acc.s.version})`,
      });
      continue;
    }
    if (!typeOk(v, type)) {
      acc.push({
        ruleId: 'A2A-STRUCT-002',
        kind: 'type',
        pointer: `${base}/${escapePointer(name)}`,
        message: `${name} must be ${TYPE_WORD[type]}, found ${jsonType(v)} (${def}, A2A ${acc.s.version})`,
      });
      continue;
    }
    if (type === 'array<string>') {
      const arr = v as unknown[];
      for (let i = 0; i < arr.length; i++) {
        if (typeof arr[i] !== 'string') {
          acc.push({
            ruleId: 'A2A-STRUCT-003',
            kind: 'item-type',
            pointer: `${base}/${escapePointer(name)}/${i}`,
            message: `${name}[${i}] must be a string, found ${jsonType(arr[i])} (${def}, A2A ${acc.s.version})`,
          });
        }
      }
    }
  }
}

function checkObjectList(acc: Acc, list: unknown[], base: string, listName: string, table: Table, def: string): void {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isObject(item)) {
      acc.push({
        ruleId: 'A2A-STRUCT-003',
        kind: 'item-type',
        pointer: `${base}/${i}`,
        message: `${listName}[${i}] must be an object, found ${jsonType(item)} (${def}, A2A ${acc.s.version})`,
      });
      continue;
    }
    checkFields(acc, item, table, `${base}/${i}`, def);
  }
}

/** Checks a document (already known to be a JSON object) against one version's required fields. */
export function checkStructure(doc: JsonObject, family: Family): StructureResult {
  const s = SCHEMAS[family];
  const acc = new Acc(s);
  checkFields(acc, doc, s.card, '', s.defs.card);

  const skills = own(doc, 'skills');
  if (Array.isArray(skills)) checkObjectList(acc, skills, '/skills', 'skills', s.skill, s.defs.skill);

  const provider = own(doc, 'provider');
  if (isObject(provider)) checkFields(acc, provider, s.provider, '/provider', s.defs.provider);

  const ifaces = own(doc, s.interfaces.key);
  if (Array.isArray(ifaces)) {
    checkObjectList(acc, ifaces, `/${s.interfaces.key}`, s.interfaces.key, s.interfaces.fields, s.defs.iface);
  }

  return {
    version: s.version,
    schema: s.file,
    schemaSha256: s.sha256,
    valid: acc.count === 0,
    violations: acc.list,
    violationCount: acc.count,
    ruleCounts: acc.ruleCounts,
    onlyMissingProtocolVersion: acc.count === 1 && acc.missingPV,
  };
}

export interface StructuralAnswer {
  attribution: Attribution;
  /** Strict verdict against the attributed version; null for route `none`. */
  strict: StructureResult | null;
  /**
   * The verdict with only a MISSING top-level protocolVersion set aside (a wrongly typed one is
   * never set aside). Never the verdict; null for route `none`.
   */
  tolerantValid: boolean | null;
  /** For inferred and conflict documents: the verdict under the version not assigned. */
  alternative: StructureResult | null;
}

/** Attribution plus strict, tolerant and alternative verdicts for one document. */
export function structuralAnswer(doc: unknown): StructuralAnswer {
  const attribution = attribute(doc);
  if (attribution.family === null || !isObject(doc)) {
    return { attribution, strict: null, tolerantValid: null, alternative: null };
  }
  const strict = checkStructure(doc, attribution.family);
  const tolerantValid = strict.valid || strict.onlyMissingProtocolVersion;
  const alternative = attribution.alternative ? checkStructure(doc, attribution.alternative) : null;
  return { attribution, strict, tolerantValid, alternative };
}
