import { isMap, isScalar, type Document } from 'yaml';
import { locator } from '../../../../core/json-locate.js';
import { escapePointer, ptr, quote } from '../../../../core/json-util.js';
import { deref, keyString, stringOf, yamlType, type Located } from '../../../plugin/frontmatter.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { AGENT_SKILLS_SPEC_URL } from '../spec.js';
import type { SkillInput } from './input.js';

/** PLG-012: the frontmatter fields keep the Agent Skills constraints. */

export const SKILL_FIELDS: Rule<SkillInput, boolean> = {
  id: 'PLG-012',
  suite: 'agentPlugins',
  component: 'skills',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-011'],
  title: 'Skill frontmatter fields',
  description:
    "A skill's name (1-64 lowercase letters or digits with single inner hyphens, equal to its directory), description (1-1024 characters), compatibility (1-500), license and allowed-tools (strings) or metadata (string keys to string values) breaks the Agent Skills constraints; the skill is skipped.",
  section: 'Agent Plugins 1.0.0 §7.1; Agent Skills specification, Frontmatter',
  link: `${AGENT_SKILLS_SPEC_URL}#frontmatter`,
  check: checkSkillFields,
};

/** The frontmatter's fields by key (the first of a repeated key), and how to report one of them. */
interface Fields {
  doc: Document.Parsed;
  byKey: Map<string, { key: unknown; value: unknown }>;
  /** The mapping itself: where a missing field is reported. */
  map: unknown;
  bad: (pointer: string, node: unknown, message: string) => void;
}

/** True when the skill's fields are valid; a skill that is not is skipped. */
function checkSkillFields({ run, dirName, md, front }: SkillInput): boolean {
  const { doc, map, offset, text } = front!; // PLG-011 passed
  const locate = locator(text);
  const at = (node: unknown): Located => locate(offset + ((node as { range?: [number, number, number] } | null)?.range?.[0] ?? 0));
  let ok = true;
  const f: Fields = {
    doc,
    byKey: new Map(),
    map,
    bad: (pointer, node, message) => {
      fail(run, SKILL_FIELDS, md.path, pointer, `${message}; the skill is skipped.`, at(node));
      ok = false;
    },
  };
  for (const pair of map.items) {
    const k = keyString(doc, pair.key);
    if (k !== null && !f.byKey.has(k)) f.byKey.set(k, { key: pair.key, value: pair.value });
  }
  checkSkillName(f, dirName);
  checkString(f, 'description', true, 1, 1024);
  checkString(f, 'compatibility', false, 1, 500);
  checkString(f, 'license', false, 0, null);
  checkString(f, 'allowed-tools', false, 0, null);
  checkMetadata(f);
  if (ok) run.rec.pass(SKILL_FIELDS);
  else run.rec.blockDependents(SKILL_FIELDS);
  return ok;
}

/** name (Agent Skills "name field"): the skill-name constraints, and equal to its directory's name. */
function checkSkillName(f: Fields, dirName: string): void {
  const field = f.byKey.get('name');
  if (!field) return f.bad('/name', f.map, 'The required frontmatter field name is missing');
  const name = stringOf(f.doc, field.value);
  if (name === null) return f.bad('/name', field.value ?? field.key, `name must be a string, not ${yamlType(f.doc, field.value)}`);
  const why = skillNameProblem(name);
  if (why !== null) f.bad('/name', field.value, `name ${quote(name)} ${why}`);
  else if (name.normalize('NFC') !== dirName.normalize('NFC'))
    f.bad('/name', field.value, `name ${quote(name)} does not match its directory name ${quote(dirName)}`);
}

/** A string field of `min` to `max` characters (code points). */
function checkString(f: Fields, name: string, required: boolean, min: number, max: number | null): void {
  const field = f.byKey.get(name);
  if (!field) {
    if (required) f.bad(ptr(name), f.map, `The required frontmatter field ${name} is missing`);
    return;
  }
  const v = stringOf(f.doc, field.value);
  if (v === null) return f.bad(ptr(name), field.value ?? field.key, `${name} must be a string, not ${yamlType(f.doc, field.value)}`);
  const n = [...v].length;
  if (n < min) f.bad(ptr(name), field.value, `${name} must not be empty`);
  else if (max !== null && n > max) f.bad(ptr(name), field.value, `${name} is ${n} characters long (at most ${max})`);
}

/** metadata: a mapping from string keys to string values. */
function checkMetadata(f: Fields): void {
  const meta = f.byKey.get('metadata');
  if (!meta) return;
  const m = deref(f.doc, meta.value);
  if (!isMap(m))
    return f.bad(
      '/metadata',
      meta.value ?? meta.key,
      `metadata must be a mapping from string keys to string values, not ${yamlType(f.doc, meta.value)}`,
    );
  for (const pair of m.items) {
    const k = keyString(f.doc, pair.key);
    if (k === null) {
      const kn = deref(f.doc, pair.key);
      const shown = isScalar(kn) ? String(kn.value) : yamlType(f.doc, pair.key);
      f.bad(
        `/metadata/${escapePointer(shown)}`,
        pair.key,
        `metadata keys must be strings; ${quote(shown)} is a ${yamlType(f.doc, pair.key)} key (quote it)`,
      );
      continue;
    }
    if (stringOf(f.doc, pair.value) === null)
      f.bad(ptr('metadata', k), pair.value ?? pair.key, `metadata.${k} must be a string, not ${yamlType(f.doc, pair.value)} (quote it)`);
  }
}

/**
 * Why a skill name breaks the Agent Skills constraints, or null: 1-64 characters, Unicode
 * letters and digits that are lowercase (a letter without case, such as CJK, is allowed) and
 * hyphens, no leading, trailing or consecutive hyphens.
 */
export function skillNameProblem(name: string): string | null {
  const chars = [...name];
  if (chars.length === 0) return 'must not be empty';
  if (chars.length > 64) return `is ${chars.length} characters long (at most 64)`;
  const bad = chars.find((ch) => ch !== '-' && !/^[\p{L}\p{N}]$/u.test(ch));
  if (bad !== undefined) return `contains ${quote(bad)}: only lowercase letters, digits and hyphens are allowed`;
  if (name.toLowerCase() !== name) return 'must be lowercase';
  if (name.startsWith('-') || name.endsWith('-')) return 'must not start or end with a hyphen';
  if (name.includes('--')) return 'must not contain consecutive hyphens (--)';
  return null;
}
