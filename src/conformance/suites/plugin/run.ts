import { jsonErrorOffset, locator } from '../../../core/json-locate.js';
import type { Located } from '../../plugin/frontmatter.js';
import type { PluginSnapshot } from '../../plugin/snapshot.js';
import type { Recorder } from '../../recorder.js';
import type { Component, Rule } from '../../rule.js';
import type { Severity } from '../../types.js';

/** One check of a plugin package: the snapshot judged, and what the rules recorded about it. */

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

export interface PluginRun {
  rec: Recorder<PluginFinding>;
  snap: PluginSnapshot;
  /** Why each rule that could not complete did not. */
  incomplete: PluginIncomplete[];
  /** Texts of JSON files, to locate pointers at the end. */
  texts: Map<string, string>;
  components: PluginComponents;
}

export function fail(run: PluginRun, rule: Rule, file: string, pointer: string | null, message: string, at?: Located): void {
  if (run.rec.full()) return run.rec.failUnlisted(rule, 1);
  run.rec.fail(rule, {
    ruleId: rule.id,
    severity: rule.severity,
    file,
    pointer,
    location: pointer === null ? file : `${file}#${pointer}`,
    line: at?.line ?? null,
    column: at?.column ?? null,
    message,
    spec: { section: rule.section, url: rule.link },
  });
}

export function unable(run: PluginRun, rule: Rule, location: string, reason: string): void {
  run.rec.unable(rule);
  run.incomplete.push({ ruleId: rule.id, location, reason });
}

/** Blocks a component location that cannot be read: PLG-010 for it, and the rules of its component. */
export function blockLocation(run: PluginRun, locations: Rule, component: Component): void {
  run.rec.block(locations, ...run.rec.rules.ofComponent(component));
}

export function kindWords(kind: string): string {
  return kind === 'file'
    ? 'a regular file'
    : kind === 'directory'
      ? 'a directory'
      : kind === 'missing'
        ? 'nothing'
        : 'neither a regular file nor a directory';
}

/** Where JSON text breaks the grammar, as a finding's line and column (the whole file when the scanner finds no error). */
export function parseErrorAt(text: string): Located | undefined {
  const off = jsonErrorOffset(text);
  return off === null ? undefined : locator(text)(off);
}

/** Node's parse message without the excerpt of the file that V8 quotes in some messages: package text (a secret, perhaps) stays out of findings. */
export function parseMessage(error: string): string {
  return error.replace(/, (?:\.\.\.)?".*$/s, '');
}
