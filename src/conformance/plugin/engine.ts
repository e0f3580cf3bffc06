import { isMap, isScalar } from 'yaml';
import { locatePointers } from '../json-locate.js';
import { escapePointer, isObject, jsonType, own, parseJson, ptr, quote, show, type JsonObject } from '../json-util.js';
import type { Severity } from '../types.js';
import {
  AGENT_PLUGINS_VERSION,
  MANIFEST_SCHEMA_ID,
  PLUGIN_RULE_COMPONENTS,
  PLUGIN_RULES,
  getPluginRule,
  prerequisiteClosure,
  type PluginComponent,
} from './catalogue.js';
import { embeddedCredential } from './credentials.js';
import { deref, keyString, locator, parseFrontmatter, stringOf, yamlType, type Located } from './frontmatter.js';
import { jsonErrorOffset } from './json-error.js';
import { PLUGIN_DATA_PLACEHOLDER, PLUGIN_ROOT_PLACEHOLDER, commandKey, cwdForm, hasPlaceholder } from './paths.js';
import type { FileEntry, PluginSnapshot, Resolution } from './snapshot.js';

/**
 * The Agent Plugins 1.0.0 rule engine: judges a package snapshot (snapshot.ts), never the
 * file system. Failure boundaries follow the specification: a fatal manifest (§5.2, §5.3)
 * stops component discovery; an invalid skills/ location or skill skips only that (§6.2,
 * §7.1); an invalid mcp.json disables MCP (§7.2.2 (2)); an invalid server skips only that
 * server (§7.2.2 (3)). Unknown manifest fields and a non-object `extensions` fail the package
 * but stop nothing (§5.2, §8.1).
 */

export type PluginRuleOutcome = 'pass' | 'fail' | 'unable-to-complete' | 'blocked' | 'not-applicable' | 'excluded';

export interface PluginFinding {
  ruleId: string;
  severity: Severity;
  /** Root-relative file or directory the finding is about (`plugin.json`, `skills/x/SKILL.md`, `skills/x`). */
  file: string;
  /** JSON pointer into the file (`/name`), or null for a finding about a path itself. */
  pointer: string | null;
  /** `file#pointer` (or `file`), for people: `plugin.json#/name`. */
  location: string;
  /** 1-based line and column (UTF-16 code units) in the file; null for a path finding. */
  line: number | null;
  column: number | null;
  message: string;
  spec: { section: string; url: string };
}

export interface PluginIncomplete {
  ruleId: string;
  location: string;
  reason: string;
}

export type ComponentState = 'valid' | 'invalid' | 'absent' | 'incomplete' | 'not-checked';

export interface PluginComponents {
  manifest: ComponentState;
  skills: { state: ComponentState; discovered: number; valid: number };
  mcp: { state: ComponentState; servers: number; valid: number };
}

export interface PluginEvaluation {
  selectedRule: string | null;
  /** One line per catalogue rule, in catalogue order. */
  rules: Array<{ id: string; severity: Severity; outcome: PluginRuleOutcome }>;
  findings: PluginFinding[];
  omittedFindings: number;
  incomplete: PluginIncomplete[];
  components: PluginComponents;
}

export interface EvaluateOptions {
  /** Evaluate this rule and the rules it needs; report the others as excluded. */
  rule?: string | null;
}

/** At most this many findings are listed; the rest are counted. */
export const MAX_PLUGIN_FINDINGS = 500;

/** The components a check must read: the manifest always, and those the selected rule needs. */
export function componentsFor(rule: string | null | undefined): Set<PluginComponent> {
  if (!rule) return new Set(['manifest', 'skills', 'mcp']);
  return new Set(PLUGIN_RULE_COMPONENTS[rule] ?? ['manifest']);
}

/** The rules a check evaluates: all, or the selected one with its prerequisites. */
export function rulesFor(rule: string | null | undefined): Set<string> {
  if (!rule) return new Set(PLUGIN_RULES.map((r) => r.id));
  return prerequisiteClosure(rule);
}

type Instance = 'pass' | 'fail' | 'incomplete' | 'blocked';

const MANIFEST_FIELDS = ['$schema', 'name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords', 'extensions'];
const STDIO_FIELDS = ['type', 'command', 'args', 'env', 'cwd'];
const REMOTE_FIELDS = ['type', 'url', 'headers'];
const RESERVED_ENV = ['PLUGIN_ROOT', 'PLUGIN_DATA'];
const MCP_SCHEMA_FORM = /^https:\/\/agent-plugins\.org\/schemas\/(\d+\.\d+\.\d+)\/mcp\.schema\.json$/;
const MANIFEST_SCHEMA_FORM = /^https:\/\/agent-plugins\.org\/schemas\/([^/]+)\/plugin\.schema\.json$/;

class Collector {
  readonly findings: PluginFinding[] = [];
  omitted = 0;
  readonly incomplete: PluginIncomplete[] = [];
  readonly instances = new Map<string, Instance[]>();
  /** Texts of JSON files, to locate pointers at the end. */
  readonly texts = new Map<string, string>();

  private mark(id: string, o: Instance): void {
    if (!getPluginRule(id)) throw new Error(`unknown plugin rule ${id}`);
    const list = this.instances.get(id);
    if (list) list.push(o);
    else this.instances.set(id, [o]);
  }

  pass(...ids: string[]): void {
    for (const id of ids) this.mark(id, 'pass');
  }

  block(...ids: string[]): void {
    for (const id of ids) this.mark(id, 'blocked');
  }

  fail(id: string, file: string, pointer: string | null, message: string, at?: Located): void {
    this.mark(id, 'fail');
    if (this.findings.length >= MAX_PLUGIN_FINDINGS) {
      this.omitted++;
      return;
    }
    const rule = getPluginRule(id)!;
    this.findings.push({
      ruleId: id,
      severity: rule.severity,
      file,
      pointer,
      location: pointer === null ? file : `${file}#${pointer}`,
      line: at?.line ?? null,
      column: at?.column ?? null,
      message,
      spec: { section: rule.spec.section, url: rule.spec.url },
    });
  }

  unable(id: string, location: string, reason: string): void {
    this.mark(id, 'incomplete');
    this.incomplete.push({ ruleId: id, location, reason });
  }

  failed(id: string): boolean {
    return this.instances.get(id)?.includes('fail') ?? false;
  }
}

const range = (from: number, to: number): string[] => {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`PLG-${String(n).padStart(3, '0')}`);
  return out;
};
const SKILL_RULES = range(11, 12);
const MCP_RULES = range(13, 21);
const COMPONENT_RULES = ['PLG-010', ...SKILL_RULES, ...MCP_RULES];

/** Records a path's containment (PLG-002, or `rule` for command and cwd); true when it resolved inside the root. */
function contained(c: Collector, rule: string, file: string, res: Resolution | undefined, blocks: string[], pointer: string | null = null): res is Extract<Resolution, { status: 'inside' }> {
  if (!res) {
    c.unable(rule, file, `${file} was not resolved`);
    c.block(...blocks);
    return false;
  }
  switch (res.status) {
    case 'inside':
      return true;
    case 'escape':
      c.fail(rule, file, pointer, `${file} resolves outside the plugin root (${res.detail}); a client must deny access to it.`);
      c.block(...blocks);
      return false;
    case 'broken':
      c.fail(rule, file, pointer, `${file} leads through a broken symbolic link (${res.detail}).`);
      c.block(...blocks);
      return false;
    case 'error':
      c.unable(rule, file, `${file} could not be inspected: ${res.detail}`);
      c.block(...blocks);
      return false;
  }
}

function kindWords(kind: string): string {
  return kind === 'file' ? 'a regular file' : kind === 'directory' ? 'a directory' : kind === 'missing' ? 'nothing' : 'neither a regular file nor a directory';
}

/** Where JSON text breaks the grammar, as a finding's line and column (the whole file when the scanner finds no error). */
function parseErrorAt(text: string): Located | undefined {
  const off = jsonErrorOffset(text);
  return off === null ? undefined : locator(text)(off);
}

/** Node's parse message without the excerpt of the file that V8 quotes in some messages: package text (a secret, perhaps) stays out of findings. */
function parseMessage(error: string): string {
  return error.replace(/, (?:\.\.\.)?".*$/s, '');
}

// ------------------------------------------------------------------ manifest

interface ManifestOutcome {
  /** The manifest allows component discovery. */
  ok: boolean;
  /** The Agent Plugins version plugin.json declares (when ok). */
  version: string | null;
}

function evaluateManifest(c: Collector, snap: PluginSnapshot): ManifestOutcome {
  const stop = (): ManifestOutcome => {
    c.block(...COMPONENT_RULES);
    return { ok: false, version: null };
  };
  const rest = range(3, 9);
  if (snap.rootError !== undefined) {
    c.unable('PLG-001', '.', `the plugin root could not be listed: ${snap.rootError}`);
    c.block(...rest);
    return stop();
  }
  const m = snap.manifest;
  if (!m.present) {
    c.fail('PLG-001', 'plugin.json', null, 'No plugin.json (exact name) at the plugin root: a plugin must include its manifest there, and a client rejects the plugin.');
    c.block(...rest);
    return stop();
  }
  if (!contained(c, 'PLG-002', 'plugin.json', m.resolution, ['PLG-001', ...rest])) return stop();
  c.pass('PLG-002');
  const res = m.resolution as Extract<Resolution, { status: 'inside' }>;
  if (res.kind !== 'file') {
    c.fail('PLG-001', 'plugin.json', null, `plugin.json resolves to ${kindWords(res.kind)}, not a regular file.`);
    c.block(...rest);
    return stop();
  }
  c.pass('PLG-001');
  const content = m.content;
  if (!content || 'error' in content) {
    c.unable('PLG-003', 'plugin.json', content ? content.error : 'plugin.json was not read');
    c.block(...range(4, 9));
    return stop();
  }
  c.texts.set('plugin.json', content.text);
  if (!content.validUtf8) {
    c.fail('PLG-003', 'plugin.json', '', 'plugin.json is not valid UTF-8, so it is not JSON text (RFC 8259 §8.1).');
    c.block(...range(4, 9));
    return stop();
  }
  const parsed = parseJson(content.text);
  if (!parsed.ok) {
    c.fail('PLG-003', 'plugin.json', '', `plugin.json is not JSON: ${parseMessage(parsed.error)}.`, parseErrorAt(content.text));
    c.block(...range(4, 9));
    return stop();
  }
  if (!isObject(parsed.value)) {
    c.fail('PLG-003', 'plugin.json', '', `plugin.json holds ${jsonType(parsed.value) === 'array' ? 'an array' : `a ${jsonType(parsed.value)}`}, not a JSON object.`);
    c.block(...range(4, 9));
    return stop();
  }
  c.pass('PLG-003');
  const d = parsed.value;
  let fatal = false;

  // PLG-004 required fields; PLG-005 and PLG-006 read them only when they are usable.
  const schema = own(d, '$schema');
  const name = own(d, 'name');
  let required = true;
  for (const [field, v] of [['$schema', schema], ['name', name]] as const) {
    if (v === undefined) {
      c.fail('PLG-004', 'plugin.json', ptr(field), `The required field ${field} is missing.`);
      required = false;
    } else if (typeof v !== 'string') {
      c.fail('PLG-004', 'plugin.json', ptr(field), `${field} must be a string, not ${jsonType(v)}.`);
      required = false;
    } else if (v === '') {
      c.fail('PLG-004', 'plugin.json', ptr(field), `${field} must not be empty.`);
      required = false;
    }
  }
  if (required) c.pass('PLG-004');
  else fatal = true;

  let version: string | null = null;
  if (typeof schema === 'string' && schema !== '') {
    if (schema === MANIFEST_SCHEMA_ID) {
      c.pass('PLG-005');
      version = AGENT_PLUGINS_VERSION;
    } else {
      const other = MANIFEST_SCHEMA_FORM.exec(schema);
      c.fail(
        'PLG-005',
        'plugin.json',
        '/$schema',
        other
          ? `$schema declares Agent Plugins ${quote(other[1]!)}, which this checker does not support (only ${AGENT_PLUGINS_VERSION}: ${MANIFEST_SCHEMA_ID}); a client that does not support the version rejects the plugin.`
          : `$schema is ${quote(schema, 120)}, not the canonical identifier ${MANIFEST_SCHEMA_ID}.`,
      );
      fatal = true;
    }
  } else c.block('PLG-005');

  if (typeof name === 'string' && name !== '') {
    const why = pluginNameProblem(name);
    if (why === null) c.pass('PLG-006');
    else {
      c.fail('PLG-006', 'plugin.json', '/name', `name ${quote(name)} ${why}.`);
      fatal = true;
    }
  } else c.block('PLG-006');

  // PLG-007 metadata types (never formats: §5.4).
  let metaOk = true;
  for (const field of ['version', 'description', 'homepage', 'repository', 'license']) {
    const v = own(d, field);
    if (v !== undefined && typeof v !== 'string') {
      c.fail('PLG-007', 'plugin.json', ptr(field), `${field} must be a string, not ${jsonType(v)}.`);
      metaOk = false;
    }
  }
  const keywords = own(d, 'keywords');
  if (keywords !== undefined) {
    if (!Array.isArray(keywords)) {
      c.fail('PLG-007', 'plugin.json', '/keywords', `keywords must be an array of strings, not ${jsonType(keywords)}.`);
      metaOk = false;
    } else {
      keywords.forEach((k, i) => {
        if (typeof k !== 'string') {
          c.fail('PLG-007', 'plugin.json', ptr('keywords', i), `keywords[${i}] must be a string, not ${jsonType(k)}.`);
          metaOk = false;
        }
      });
    }
  }
  const author = own(d, 'author');
  if (author !== undefined) {
    if (!isObject(author)) {
      c.fail('PLG-007', 'plugin.json', '/author', `author must be an object, not ${jsonType(author)}.`);
      metaOk = false;
    } else {
      for (const k of Object.keys(author)) {
        const v = own(author, k);
        if (!['name', 'email', 'url'].includes(k)) {
          c.fail('PLG-007', 'plugin.json', ptr('author', k), `author may hold only name, email and url; ${quote(k)} makes the manifest invalid.`);
          metaOk = false;
        } else if (typeof v !== 'string') {
          c.fail('PLG-007', 'plugin.json', ptr('author', k), `author.${k} must be a string, not ${jsonType(v)}.`);
          metaOk = false;
        }
      }
    }
  }
  if (metaOk) c.pass('PLG-007');
  else fatal = true;

  // PLG-008 unknown fields: reported and ignored (non-fatal).
  const unknown = Object.keys(d).filter((k) => !MANIFEST_FIELDS.includes(k));
  for (const k of unknown) {
    const hint = k === 'mcpServers' || k === 'skills' ? ' (components are discovered only from their fixed locations, never declared in plugin.json)' : '';
    c.fail('PLG-008', 'plugin.json', ptr(k), `Unknown top-level field ${quote(k)}${hint}: the manifest schema is closed; client-specific data belongs under extensions. A client reports and ignores it.`);
  }
  if (unknown.length === 0) c.pass('PLG-008');

  // PLG-009 extensions (non-fatal; member contents are opaque).
  const ext = own(d, 'extensions');
  if (ext === undefined) c.pass('PLG-009');
  else if (!isObject(ext)) c.fail('PLG-009', 'plugin.json', '/extensions', `extensions must be an object keyed by extension namespace, not ${jsonType(ext)}; a client reports and ignores it and goes on loading components.`);
  else {
    let ok = true;
    for (const k of Object.keys(ext)) {
      const v = own(ext, k);
      if (!isObject(v)) {
        c.fail('PLG-009', 'plugin.json', ptr('extensions', k), `extensions member ${quote(k)} must be an object, not ${jsonType(v)} (its contents are not judged).`);
        ok = false;
      }
    }
    if (ok) c.pass('PLG-009');
  }

  if (fatal) return stop();
  return { ok: true, version };
}

/** Why a non-empty plugin name breaks §5.5, or null. */
export function pluginNameProblem(name: string): string | null {
  const n = [...name].length;
  if (n > 64) return `is ${n} characters long (at most 64)`;
  const bad = [...name].find((ch) => !/[a-z0-9.-]/.test(ch));
  if (bad !== undefined) return `contains ${quote(bad)}: only lowercase a-z, digits, hyphens and periods are allowed`;
  if (!/^[a-z0-9]/.test(name)) return 'must start with a lowercase letter or digit';
  if (!/[a-z0-9]$/.test(name)) return 'must end with a lowercase letter or digit';
  if (name.includes('--')) return 'contains consecutive hyphens (--)';
  if (name.includes('..')) return 'contains consecutive periods (..)';
  return null;
}

// ------------------------------------------------------------------ skills

function evaluateSkills(c: Collector, snap: PluginSnapshot, comps: PluginComponents): void {
  const s = snap.skills;
  if (!s) return;
  if (!s.present) {
    c.pass('PLG-010');
    comps.skills.state = 'absent';
    return;
  }
  if (!contained(c, 'PLG-002', 'skills', s.resolution, ['PLG-010', ...SKILL_RULES])) {
    comps.skills.state = s.resolution?.status === 'error' ? 'incomplete' : 'invalid';
    return;
  }
  c.pass('PLG-002');
  const res = s.resolution as Extract<Resolution, { status: 'inside' }>;
  if (res.kind !== 'directory') {
    c.fail('PLG-010', 'skills', null, `skills resolves to ${kindWords(res.kind)}, not a directory: the skills component type is invalid (other components still load).`);
    c.block(...SKILL_RULES);
    comps.skills.state = 'invalid';
    return;
  }
  c.pass('PLG-010');
  comps.skills.state = 'valid';
  if (s.error !== undefined) {
    c.unable('PLG-011', 'skills', `skills/ could not be listed completely: ${s.error}`);
    comps.skills.state = 'incomplete';
  }
  for (const child of s.children ?? []) {
    const dir = `skills/${child.name}`;
    if (!contained(c, 'PLG-002', dir, child.resolution, SKILL_RULES)) continue;
    c.pass('PLG-002');
    if (child.resolution.status !== 'inside' || child.resolution.kind !== 'directory') continue; // not a skill directory
    if (child.error !== undefined) {
      c.unable('PLG-011', dir, `${dir} could not be listed: ${child.error}`);
      continue;
    }
    const md = child.skillMd;
    if (!md || !md.present) continue; // no SKILL.md: not a skill (no missing-skill error is invented)
    if (!contained(c, 'PLG-002', md.path, md.resolution, SKILL_RULES)) continue;
    c.pass('PLG-002');
    if ((md.resolution as Extract<Resolution, { status: 'inside' }>).kind !== 'file') continue; // SKILL.md must resolve to a regular file to make a skill
    comps.skills.discovered++;
    if (evaluateSkill(c, child.name, md)) comps.skills.valid++;
  }
  if (comps.skills.state === 'valid' && comps.skills.valid < comps.skills.discovered) comps.skills.state = 'invalid';
}

function evaluateSkill(c: Collector, dirName: string, md: FileEntry): boolean {
  const file = md.path;
  const content = md.content;
  if (!content || 'error' in content) {
    c.unable('PLG-011', file, content ? content.error : `${file} was not read`);
    c.block('PLG-012');
    return false;
  }
  if (!content.validUtf8) {
    c.fail('PLG-011', file, null, `${file} is not valid UTF-8.`, { line: 1, column: 1 });
    c.block('PLG-012');
    return false;
  }
  const fm = parseFrontmatter(content.text);
  if (!fm.ok) {
    c.fail('PLG-011', file, null, `${file}: ${fm.message}; the skill is skipped.`, fm.at);
    c.block('PLG-012');
    return false;
  }
  c.pass('PLG-011');
  const { doc, map, offset } = fm;
  const locate = locator(content.text);
  const at = (node: unknown): Located => {
    const r = (node as { range?: [number, number, number] } | null)?.range;
    return locate(offset + (r?.[0] ?? 0));
  };
  const fields = new Map<string, { key: unknown; value: unknown }>();
  for (const pair of map.items) {
    const k = keyString(doc, pair.key);
    if (k !== null && !fields.has(k)) fields.set(k, { key: pair.key, value: pair.value });
  }
  let ok = true;
  const bad = (pointer: string, node: unknown, message: string): void => {
    c.fail('PLG-012', file, pointer, `${message}; the skill is skipped.`, at(node));
    ok = false;
  };
  const mapStart = map as unknown;
  const str = (field: string, required: boolean, min: number, max: number | null): void => {
    const f = fields.get(field);
    if (!f) {
      if (required) bad(ptr(field), mapStart, `The required frontmatter field ${field} is missing`);
      return;
    }
    const v = stringOf(doc, f.value);
    if (v === null) {
      bad(ptr(field), f.value ?? f.key, `${field} must be a string, not ${yamlType(doc, f.value)}`);
      return;
    }
    const n = [...v].length;
    if (n < min) bad(ptr(field), f.value, `${field} must not be empty`);
    else if (max !== null && n > max) bad(ptr(field), f.value, `${field} is ${n} characters long (at most ${max})`);
  };

  // name (Agent Skills "name field")
  const nameField = fields.get('name');
  if (!nameField) bad('/name', mapStart, 'The required frontmatter field name is missing');
  else {
    const name = stringOf(doc, nameField.value);
    if (name === null) bad('/name', nameField.value ?? nameField.key, `name must be a string, not ${yamlType(doc, nameField.value)}`);
    else {
      const why = skillNameProblem(name);
      if (why !== null) bad('/name', nameField.value, `name ${quote(name)} ${why}`);
      else if (name.normalize('NFC') !== dirName.normalize('NFC')) bad('/name', nameField.value, `name ${quote(name)} does not match its directory name ${quote(dirName)}`);
    }
  }
  str('description', true, 1, 1024);
  str('compatibility', false, 1, 500);
  str('license', false, 0, null);
  str('allowed-tools', false, 0, null);
  const meta = fields.get('metadata');
  if (meta) {
    const m = deref(doc, meta.value);
    if (!isMap(m)) bad('/metadata', meta.value ?? meta.key, `metadata must be a mapping from string keys to string values, not ${yamlType(doc, meta.value)}`);
    else {
      for (const pair of m.items) {
        const k = keyString(doc, pair.key);
        if (k === null) {
          const kn = deref(doc, pair.key);
          const shown = isScalar(kn) ? String(kn.value) : yamlType(doc, pair.key);
          bad(`/metadata/${escapePointer(shown)}`, pair.key, `metadata keys must be strings; ${quote(shown)} is a ${yamlType(doc, pair.key)} key (quote it)`);
          continue;
        }
        if (stringOf(doc, pair.value) === null) bad(ptr('metadata', k), pair.value ?? pair.key, `metadata.${k} must be a string, not ${yamlType(doc, pair.value)} (quote it)`);
      }
    }
  }
  if (ok) c.pass('PLG-012');
  return ok;
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

// ------------------------------------------------------------------ MCP

function evaluateMcp(c: Collector, snap: PluginSnapshot, manifestVersion: string | null, comps: PluginComponents): void {
  const e = snap.mcp;
  if (!e) return;
  if (!e.present) {
    c.pass('PLG-010');
    comps.mcp.state = 'absent';
    return;
  }
  if (!contained(c, 'PLG-002', 'mcp.json', e.resolution, ['PLG-010', ...MCP_RULES])) {
    comps.mcp.state = e.resolution?.status === 'error' ? 'incomplete' : 'invalid';
    return;
  }
  c.pass('PLG-002');
  const res = e.resolution as Extract<Resolution, { status: 'inside' }>;
  if (res.kind !== 'file') {
    c.fail('PLG-010', 'mcp.json', null, `mcp.json resolves to ${kindWords(res.kind)}, not a regular file: MCP is invalid for the plugin (other components still load).`);
    c.block(...MCP_RULES);
    comps.mcp.state = 'invalid';
    return;
  }
  c.pass('PLG-010');
  comps.mcp.state = 'invalid';
  const content = e.content;
  if (!content || 'error' in content) {
    c.unable('PLG-013', 'mcp.json', content ? content.error : 'mcp.json was not read');
    c.block(...range(14, 21));
    comps.mcp.state = 'incomplete';
    return;
  }
  c.texts.set('mcp.json', content.text);
  const parsed = content.validUtf8 ? parseJson(content.text) : null;
  if (parsed === null || !parsed.ok || !isObject(parsed.value)) {
    const why = parsed === null ? 'is not valid UTF-8, so it is not JSON text' : !parsed.ok ? `is not JSON: ${parseMessage(parsed.error)}` : `holds ${jsonType(parsed.value)}, not a JSON object`;
    c.fail('PLG-013', 'mcp.json', '', `mcp.json ${why}; MCP is disabled for the plugin.`, parsed !== null && !parsed.ok ? parseErrorAt(content.text) : undefined);
    c.block(...range(14, 21));
    return;
  }
  c.pass('PLG-013');
  const d = parsed.value;
  let closed = true;
  for (const f of ['$schema', 'mcpServers']) {
    if (own(d, f) === undefined) {
      c.fail('PLG-014', 'mcp.json', ptr(f), `The required field ${f} is missing; MCP is disabled for the plugin.`);
      closed = false;
    }
  }
  const servers = own(d, 'mcpServers');
  if (servers !== undefined && !isObject(servers)) {
    c.fail('PLG-014', 'mcp.json', '/mcpServers', `mcpServers must be an object of server configurations, not ${jsonType(servers)}; MCP is disabled for the plugin.`);
    closed = false;
  }
  for (const k of Object.keys(d)) {
    if (k !== '$schema' && k !== 'mcpServers') {
      c.fail('PLG-014', 'mcp.json', ptr(k), `Unknown top-level field ${quote(k)}: mcp.json allows only $schema and mcpServers; MCP is disabled for the plugin.`);
      closed = false;
    }
  }
  if (!closed) {
    c.block(...range(15, 21));
    return;
  }
  c.pass('PLG-014');
  const schema = own(d, '$schema');
  const form = typeof schema === 'string' ? MCP_SCHEMA_FORM.exec(schema) : null;
  if (!form) {
    c.fail('PLG-015', 'mcp.json', '/$schema', `$schema is ${show(schema, 120)}, not a canonical Agent Plugins MCP schema identifier (for ${AGENT_PLUGINS_VERSION}: https://agent-plugins.org/schemas/${AGENT_PLUGINS_VERSION}/mcp.schema.json); MCP is disabled for the plugin.`);
    c.block(...range(16, 21));
    return;
  }
  c.pass('PLG-015');
  if (form[1] !== manifestVersion) {
    c.fail('PLG-016', 'mcp.json', '/$schema', `mcp.json targets Agent Plugins ${form[1]} but plugin.json targets ${manifestVersion ?? 'another version'}; MCP is disabled for the plugin (other components still load).`);
    c.block(...range(17, 21));
    return;
  }
  c.pass('PLG-016');
  comps.mcp.state = 'valid';
  const list = servers as JsonObject;
  for (const name of Object.keys(list)) {
    comps.mcp.servers++;
    if (evaluateServer(c, snap, name, own(list, name))) comps.mcp.valid++;
  }
  if (comps.mcp.valid < comps.mcp.servers) comps.mcp.state = 'invalid';
}

function evaluateServer(c: Collector, snap: PluginSnapshot, name: string, v: unknown): boolean {
  const base = ptr('mcpServers', name);
  const F = 'mcp.json';
  const skip = '; the server is skipped';
  if (!isObject(v)) {
    c.fail('PLG-017', F, base, `Server ${quote(name)} must be an object, not ${jsonType(v)}${skip}.`);
    return false;
  }
  const type = own(v, 'type');
  if (type === undefined) {
    c.fail('PLG-017', F, base, `Server ${quote(name)} has no type (stdio, streamable-http or sse)${skip}.`);
    return false;
  }
  if (type !== 'stdio' && type !== 'streamable-http' && type !== 'sse') {
    c.fail('PLG-017', F, `${base}/type`, `Server ${quote(name)} has type ${show(type)}, not stdio, streamable-http or sse${skip}.`);
    return false;
  }
  const stdio = type === 'stdio';
  const allowed = stdio ? STDIO_FIELDS : REMOTE_FIELDS;
  const other = stdio ? REMOTE_FIELDS : STDIO_FIELDS;
  let ok = true;
  const bad = (pointer: string, message: string): void => {
    c.fail('PLG-017', F, pointer, `${message}${skip}.`);
    ok = false;
  };
  for (const k of Object.keys(v)) {
    if (allowed.includes(k)) continue;
    bad(`${base}/${escapePointer(k)}`, other.includes(k) ? `${quote(k)} belongs to the ${stdio ? 'remote (streamable-http, sse)' : 'stdio'} variant, not to a ${type} server` : `Unknown field ${quote(k)} in a ${type} server`);
  }
  const strField = (k: string): void => {
    const x = own(v, k);
    if (x === undefined) bad(`${base}/${k}`, `A ${type} server needs ${k}`);
    else if (typeof x !== 'string') bad(`${base}/${k}`, `${k} must be a string, not ${jsonType(x)}`);
    else if (x === '') bad(`${base}/${k}`, `${k} must not be empty`);
  };
  const strMap = (k: string, reserved: boolean): void => {
    const x = own(v, k);
    if (x === undefined) return;
    if (!isObject(x)) {
      bad(`${base}/${k}`, `${k} must be an object of strings, not ${jsonType(x)}`);
      return;
    }
    for (const key of Object.keys(x)) {
      const val = own(x, key);
      if (typeof val !== 'string') bad(`${base}/${k}/${escapePointer(key)}`, `${k}.${key} must be a string, not ${jsonType(val)}`);
      if (reserved && RESERVED_ENV.includes(key)) bad(`${base}/${k}/${escapePointer(key)}`, `env must not set ${key}: the client supplies PLUGIN_ROOT and PLUGIN_DATA itself (§9.2)`);
    }
  };
  if (stdio) {
    strField('command');
    const args = own(v, 'args');
    if (args !== undefined) {
      if (!Array.isArray(args)) bad(`${base}/args`, `args must be an array of strings, not ${jsonType(args)}`);
      else args.forEach((a, i) => {
        if (typeof a !== 'string') bad(`${base}/args/${i}`, `args[${i}] must be a string, not ${jsonType(a)}`);
      });
    }
    strMap('env', true);
    const cwd = own(v, 'cwd');
    if (cwd !== undefined && typeof cwd !== 'string') bad(`${base}/cwd`, `cwd must be a string, not ${jsonType(cwd)}`);
  } else {
    strField('url');
    strMap('headers', false);
  }
  const values = stdio ? 'env' : 'headers';
  if (!ok) {
    if (stdio) c.block('PLG-018', ...(typeof own(v, 'cwd') === 'string' ? ['PLG-019'] : []));
    else c.block('PLG-020');
    if (own(v, values) !== undefined) c.block('PLG-021');
    return false;
  }
  c.pass('PLG-017');
  const map = own(v, values);
  // A package rule only: a client cannot tell a secret from other text, so the server's validity is not changed.
  if (isObject(map)) checkCredentials(c, base, name, values, map);
  if (stdio) {
    const a = checkCommand(c, snap, base, name, own(v, 'command') as string);
    const cwd = own(v, 'cwd');
    const b = typeof cwd === 'string' ? checkCwd(c, snap, base, name, cwd) : true;
    return a && b;
  }
  return checkRemote(c, base, name, v);
}

/** PLG-021: no credential in a header or env value (§7.2.1, §9.2); the value is only ever shown redacted. */
function checkCredentials(c: Collector, base: string, name: string, field: 'headers' | 'env', map: JsonObject): void {
  let ok = true;
  for (const key of Object.keys(map)) {
    const found = embeddedCredential(field, key, own(map, key) as string);
    if (found === null) continue;
    const entry = field === 'headers' ? `header ${quote(key)}` : `env variable ${quote(key)}`;
    const why =
      field === 'headers'
        ? '(§7.2.1): header values are visible package data, sent as written (never expanded)'
        : '(§9.2): env values are visible package data, expanded only for ${PLUGIN_ROOT} and ${PLUGIN_DATA}';
    c.fail('PLG-021', 'mcp.json', `${base}/${field}/${escapePointer(key)}`, `Server ${quote(name)}: ${entry} ${found.what} (${found.redacted}); plugins must not embed credentials or other secrets in ${field} ${why}; credentials are client-managed.`);
    ok = false;
  }
  if (ok) c.pass('PLG-021');
}

function checkCommand(c: Collector, snap: PluginSnapshot, base: string, name: string, command: string): boolean {
  const P = `${base}/command`;
  const F = 'mcp.json';
  const fail = (why: string): false => {
    c.fail('PLG-018', F, P, `Server ${quote(name)}: command ${quote(command, 80)} ${why}; the server is skipped.`);
    return false;
  };
  if (hasPlaceholder(command)) return fail(`contains a placeholder, but command is never expanded (§7.2.1, §9.2); use a ./ path for a bundled executable and pass ${PLUGIN_ROOT_PLACEHOLDER} in args`);
  if (command.startsWith('./')) {
    const key = commandKey(command);
    if (key === null) return fail('names no file (a ./ path needs a file name after ./)');
    const res = snap.paths?.[key];
    if (!res) {
      c.unable('PLG-018', `mcp.json#${P}`, `the path ${quote(command, 80)} was not resolved`);
      return false;
    }
    if (res.status === 'escape') return fail(`resolves outside the plugin root (${res.detail})`);
    if (res.status === 'broken') return fail(`leads through a broken symbolic link (${res.detail})`);
    if (res.status === 'error') {
      c.unable('PLG-018', `mcp.json#${P}`, `the path ${quote(command, 80)} could not be inspected: ${res.detail}`);
      return false;
    }
    if (res.kind === 'missing' && /\s/.test(command)) return fail('names no file in the package and reads as a command line with arguments: command is one executable token, args go in args');
    c.pass('PLG-018');
    return true;
  }
  if (command.includes('/') || command.includes('\\')) return fail('is neither a bare executable name nor a plugin-relative path beginning with ./ (absolute and ../ paths are not allowed)');
  if (/\s/.test(command)) return fail('reads as a shell command string: command must be a single executable token, with its arguments in args');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(command)) return fail('contains control characters');
  if (command === '.' || command === '..') return fail('is not an executable name');
  c.pass('PLG-018');
  return true;
}

function checkCwd(c: Collector, snap: PluginSnapshot, base: string, name: string, cwd: string): boolean {
  const P = `${base}/cwd`;
  const F = 'mcp.json';
  const fail = (why: string): false => {
    c.fail('PLG-019', F, P, `Server ${quote(name)}: cwd ${quote(cwd, 80)} ${why}; the server is skipped.`);
    return false;
  };
  const form = cwdForm(cwd);
  switch (form.form) {
    case 'invalid':
      return fail(`is none of the allowed forms ./…, ${PLUGIN_ROOT_PLACEHOLDER}[/…] or ${PLUGIN_DATA_PLACEHOLDER}[/…]`);
    case 'data': {
      // `${PLUGIN_DATA}/..` is the data directory's parent whatever the client chose; anything else needs that directory.
      const first = form.rest.split('/').find((s) => s !== '' && s !== '.');
      if (first === '..') return fail('leaves the plugin data directory (its first step is ..)');
      c.unable('PLG-019', `mcp.json#${P}`, `server ${quote(name)}: cwd ${quote(cwd, 80)} is rooted in ${PLUGIN_DATA_PLACEHOLDER}, the client's data directory; whether it stays inside needs that directory, which a static check does not have (never guessed)`);
      return false;
    }
    case 'root-dynamic':
      c.unable('PLG-019', `mcp.json#${P}`, `server ${quote(name)}: cwd ${quote(cwd, 80)} expands another placeholder inside the path, so where it resolves depends on the client's directories (never guessed)`);
      return false;
    case 'root': {
      const res = snap.paths?.[form.key];
      if (!res) {
        c.unable('PLG-019', `mcp.json#${P}`, `the path ${quote(cwd, 80)} was not resolved`);
        return false;
      }
      if (res.status === 'escape') return fail(`resolves outside the plugin root (${res.detail})`);
      if (res.status === 'broken') return fail(`leads through a broken symbolic link (${res.detail})`);
      if (res.status === 'error') {
        c.unable('PLG-019', `mcp.json#${P}`, `the path ${quote(cwd, 80)} could not be inspected: ${res.detail}`);
        return false;
      }
      c.pass('PLG-019');
      return true;
    }
  }
}

// RFC 9110 §5.1 field-name = token; §5.5 field-value (obs-text allowed, no surrounding whitespace).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// eslint-disable-next-line no-control-regex
const FIELD_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

function checkRemote(c: Collector, base: string, name: string, v: JsonObject): boolean {
  const F = 'mcp.json';
  let ok = true;
  const fail = (pointer: string, why: string): void => {
    c.fail('PLG-020', F, pointer, `Server ${quote(name)}: ${why}; the server is skipped.`);
    ok = false;
  };
  const url = own(v, 'url') as string;
  const why = remoteUrlProblem(url);
  if (why !== null) fail(`${base}/url`, `url ${quote(url, 100)} ${why}`);
  const headers = own(v, 'headers');
  if (isObject(headers)) {
    const seen = new Map<string, string>();
    for (const h of Object.keys(headers)) {
      const value = own(headers, h) as string;
      const P = `${base}/headers/${escapePointer(h)}`;
      if (!TOKEN.test(h)) fail(P, `header name ${quote(h)} is not a valid HTTP field name (an RFC 9110 token)`);
      else {
        const lower = h.toLowerCase();
        const prev = seen.get(lower);
        if (prev !== undefined) fail(P, `header ${quote(h)} repeats ${quote(prev)}: header names are case-insensitive`);
        else seen.set(lower, h);
      }
      if (hasPlaceholder(h) || hasPlaceholder(value)) fail(P, `header ${quote(h)} contains a placeholder, but url and headers are never expanded (§7.2.1)`);
      else if (!FIELD_VALUE.test(value)) fail(P, `the value of header ${quote(h)} is not a valid HTTP field value (control characters, characters beyond U+00FF, or leading/trailing whitespace)`);
    }
  }
  if (ok) c.pass('PLG-020');
  return ok;
}

/** Why a remote url breaks §7.2.1, or null. */
export function remoteUrlProblem(url: string): string | null {
  if (hasPlaceholder(url)) return 'contains a placeholder, but url is never expanded';
  const scheme = /^(https?):\/\//i.exec(url);
  if (!scheme) return 'is not an absolute http:// or https:// URL';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f\\]/.test(url)) return 'contains whitespace, control characters or a backslash';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  const afterScheme = url.slice(scheme[0].length);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) return 'contains user information (user@ or user:password@)';
  if (url.includes('#')) return 'contains a fragment (#…)';
  if (parsed.hostname === '') return 'has no host';
  if (scheme[1]!.toLowerCase() === 'http' && !isLoopbackHost(authority)) return 'uses http for a host that is not localhost or a loopback IP literal: non-loopback endpoints must use https';
  return null;
}

/**
 * `localhost` or an IP literal in a loopback range, read from the URL's own text: a dotted
 * quad in 127.0.0.0/8 without leading zeros, or the IPv6 literal ::1 in any spelling. Forms a
 * URL parser would rewrite into one (`127.1`, `2130706433`, `0x7f.1`) are not such literals.
 */
export function isLoopbackHost(authority: string): boolean {
  let host: string;
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    if (end < 0) return false;
    host = authority.slice(0, end + 1);
    try {
      return new URL(`http://${host}/`).hostname === '[::1]';
    } catch {
      return false;
    }
  }
  host = authority.replace(/:\d*$/, '');
  if (host.toLowerCase() === 'localhost') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return false;
  return m.slice(1).every((o) => (o === '0' || !o.startsWith('0')) && Number(o) <= 255);
}

// ------------------------------------------------------------------ the whole package

const ORDER: Instance[] = ['fail', 'incomplete', 'blocked', 'pass'];

export function evaluatePluginPackage(snap: PluginSnapshot, opts: EvaluateOptions = {}): PluginEvaluation {
  const selected = opts.rule ?? null;
  if (selected !== null && !getPluginRule(selected)) throw new Error(`unknown plugin rule ${selected}`);
  const wanted = rulesFor(selected);
  const c = new Collector();
  const comps: PluginComponents = {
    manifest: 'not-checked',
    skills: { state: 'not-checked', discovered: 0, valid: 0 },
    mcp: { state: 'not-checked', servers: 0, valid: 0 },
  };
  const m = evaluateManifest(c, snap);
  comps.manifest = m.ok ? 'valid' : c.instances.get('PLG-003')?.includes('incomplete') || c.instances.get('PLG-001')?.includes('incomplete') ? 'incomplete' : snap.manifest.present ? 'invalid' : 'absent';
  if (m.ok) {
    evaluateSkills(c, snap, comps);
    evaluateMcp(c, snap, m.version, comps);
  }

  const rules = PLUGIN_RULES.map((r) => {
    let outcome: PluginRuleOutcome;
    if (!wanted.has(r.id)) outcome = 'excluded';
    else {
      const inst = c.instances.get(r.id) ?? [];
      const top = ORDER.find((o) => inst.includes(o));
      outcome = top === undefined ? 'not-applicable' : top === 'incomplete' ? 'unable-to-complete' : top;
    }
    return { id: r.id, severity: r.severity, outcome };
  });

  // Lines and columns of JSON pointers.
  const byFile = new Map<string, string[]>();
  for (const f of c.findings) if (f.pointer !== null && f.line === null && c.texts.has(f.file)) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f.pointer]);
  const located = new Map<string, ReturnType<typeof locatePointers>>();
  for (const [file, ptrs] of byFile) located.set(file, locatePointers(c.texts.get(file)!, ptrs));
  const findings = c.findings
    .filter((f) => wanted.has(f.ruleId))
    .map((f) => {
      const p = f.pointer !== null && f.line === null ? located.get(f.file)?.get(f.pointer) : undefined;
      return p ? { ...f, line: p.line, column: p.column } : f;
    });
  return {
    selectedRule: selected,
    rules,
    findings,
    omittedFindings: c.omitted,
    incomplete: c.incomplete.filter((i) => wanted.has(i.ruleId)),
    components: comps,
  };
}

