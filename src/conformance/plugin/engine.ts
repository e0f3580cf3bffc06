import { locatePointers } from '../../core/json-locate.js';
import { Recorder } from '../recorder.js';
import type { Severity } from '../types.js';
import {
  evaluateManifest,
  evaluateMcp,
  evaluateSkills,
  PLUGIN_SET,
  type PluginComponents,
  type PluginFinding,
  type PluginIncomplete,
  type PluginRun,
} from '../suites/plugin/index.js';
import { PLUGIN_RULE_COMPONENTS, type PluginComponent } from './catalogue.js';
import type { PluginSnapshot } from './snapshot.js';

/**
 * The Agent Plugins 1.0.0 check of one package: judges a snapshot (snapshot.ts), never the file
 * system, with the rules of suites/plugin/. Failure boundaries follow the specification and are
 * read from each rule's prerequisites: a fatal manifest (§5.2, §5.3) stops component discovery;
 * an invalid skills/ location or skill skips only that (§6.2, §7.1); an invalid mcp.json
 * disables MCP (§7.2.2 (2)); an invalid server skips only that server (§7.2.2 (3)).
 */

export type { ComponentState, PluginComponents, PluginFinding, PluginIncomplete } from '../suites/plugin/index.js';
export { isLoopbackHost, pluginNameProblem, remoteUrlProblem, skillNameProblem } from '../suites/plugin/index.js';

export type PluginRuleOutcome = 'pass' | 'fail' | 'unable-to-complete' | 'blocked' | 'not-applicable' | 'excluded';

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

/** The components a check must read: the manifest always, and the one the selected rule reads (every one for a rule on all locations). */
export function componentsFor(rule: string | null | undefined): Set<PluginComponent> {
  if (!rule) return new Set(['manifest', 'skills', 'mcp']);
  return new Set(PLUGIN_RULE_COMPONENTS[rule] ?? ['manifest']);
}

/** The rules a check evaluates: all, or the selected one with its prerequisites. */
export function rulesFor(rule: string | null | undefined): Set<string> {
  if (!rule) return new Set(PLUGIN_SET.rules.map((r) => r.id));
  return new Set(PLUGIN_SET.closure(rule));
}

export function evaluatePluginPackage(snap: PluginSnapshot, opts: EvaluateOptions = {}): PluginEvaluation {
  const selected = opts.rule ?? null;
  if (selected !== null && !PLUGIN_SET.get(selected)) throw new Error(`unknown plugin rule ${selected}`);
  const wanted = rulesFor(selected);
  const run: PluginRun = {
    rec: new Recorder<PluginFinding>(PLUGIN_SET, MAX_PLUGIN_FINDINGS),
    snap,
    incomplete: [],
    texts: new Map(),
    components: {
      manifest: 'not-checked',
      skills: { state: 'not-checked', discovered: 0, valid: 0 },
      mcp: { state: 'not-checked', servers: 0, valid: 0 },
    },
  };
  const m = evaluateManifest(run);
  run.components.manifest = m.ok
    ? 'valid'
    : run.rec.has('PLG-003', 'incomplete') || run.rec.has('PLG-001', 'incomplete')
      ? 'incomplete'
      : snap.manifest.present
        ? 'invalid'
        : 'absent';
  if (m.ok) {
    evaluateSkills(run);
    evaluateMcp(run, m.version);
  }
  const rules = PLUGIN_SET.rules.map((r) => ({ id: r.id, severity: r.severity, outcome: outcomeOf(run, r.id, wanted) }));
  return {
    selectedRule: selected,
    rules,
    findings: locateFindings(run).filter((f) => wanted.has(f.ruleId)),
    omittedFindings: run.rec.omitted,
    incomplete: run.incomplete.filter((i) => wanted.has(i.ruleId)),
    components: run.components,
  };
}

function outcomeOf(run: PluginRun, id: string, wanted: ReadonlySet<string>): PluginRuleOutcome {
  if (!wanted.has(id)) return 'excluded';
  const o = run.rec.outcome(id);
  return o === null ? 'not-applicable' : o === 'incomplete' ? 'unable-to-complete' : o;
}

/** The findings, each JSON pointer given its line and column in its file. */
function locateFindings(run: PluginRun): PluginFinding[] {
  const byFile = new Map<string, string[]>();
  for (const f of run.rec.findings)
    if (f.pointer !== null && f.line === null && run.texts.has(f.file)) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f.pointer]);
  const located = new Map<string, ReturnType<typeof locatePointers>>();
  for (const [file, ptrs] of byFile) located.set(file, locatePointers(run.texts.get(file)!, ptrs));
  return run.rec.findings.map((f) => {
    const p = f.pointer !== null && f.line === null ? located.get(f.file)?.get(f.pointer) : undefined;
    return p ? { ...f, line: p.line, column: p.column } : f;
  });
}
