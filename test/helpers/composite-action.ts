import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * Runs a composite GitHub Action's steps locally, as the runner would: inputs with their
 * defaults, `${{ }}` expressions of inputs and step outputs, `if:` conditions, each `run:` step
 * through `bash --noprofile --norc -eo pipefail` with its env, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files, stopping at the first failing step. A `uses:` step (another action)
 * is not run: it is recorded with its resolved `with:` values. Only the expression forms the
 * action uses are understood; anything else throws, so the action cannot drift past this runner.
 */

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string>;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}

interface ActionFile {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

export interface StepRun {
  name: string;
  ran: boolean;
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  uses?: string;
  with?: Record<string, string>;
}

export interface ActionRun {
  /** The exit code of the first failing step, else 0 (what the job sees). */
  code: number;
  steps: StepRun[];
  outputs: Record<string, string>;
  summary: string;
}

export function readAction(file: string): ActionFile {
  return parse(readFileSync(file, 'utf8')) as ActionFile;
}

export function runCompositeAction(
  file: string,
  given: Record<string, string>,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; actionPath: string },
): ActionRun {
  const action = readAction(file);
  if (action.runs.using !== 'composite') throw new Error(`not a composite action: ${action.runs.using}`);
  for (const k of Object.keys(given)) if (!(k in action.inputs)) throw new Error(`unknown input ${k}`);
  const inputs: Record<string, string> = {};
  for (const [k, spec] of Object.entries(action.inputs)) {
    inputs[k] = given[k] ?? spec.default ?? '';
    if (spec.required && inputs[k] === '') throw new Error(`input ${k} is required`);
  }
  const stepOutputs: Record<string, Record<string, string>> = {};

  const value = (ref: string): string => {
    const r = ref.trim();
    let m = /^inputs\.([A-Za-z0-9_-]+)$/.exec(r);
    if (m) {
      if (!(m[1]! in inputs)) throw new Error(`unknown input in expression: ${r}`);
      return inputs[m[1]!]!;
    }
    m = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(r);
    if (m) return stepOutputs[m[1]!]?.[m[2]!] ?? '';
    if (r === 'github.action_path') return opts.actionPath;
    m = /^'([^']*)'$/.exec(r);
    if (m) return m[1]!;
    throw new Error(`expression not understood by the local runner: ${r}`);
  };
  const interpolate = (text: string): string => text.replace(/\$\{\{(.*?)\}\}/g, (_m, e: string) => value(e));
  const condition = (text: string | undefined, failed: boolean): boolean => {
    if (text === undefined) return !failed;
    const expr = text.trim().replace(/^\$\{\{(.*)\}\}$/s, '$1');
    const terms = expr.split('&&').map((term) => {
      const t = term.trim();
      if (t === 'always()') return true;
      if (t === 'success()') return !failed;
      if (t === 'failure()') return failed;
      const m = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(t);
      if (!m) throw new Error(`condition not understood by the local runner: ${t}`);
      const eq = value(m[1]!) === value(m[3]!);
      return m[2] === '==' ? eq : !eq;
    });
    // Without a status function a condition holds only while no step failed (an implicit success()).
    return terms.every(Boolean) && (/\b(always|success|failure)\(\)/.test(expr) || !failed);
  };

  const tmp = mkdtempSync(join(tmpdir(), 'veronikai-action-'));
  const summaryFile = join(tmp, 'summary.md');
  writeFileSync(summaryFile, '');
  const steps: StepRun[] = [];
  let failedCode = 0;
  try {
    action.runs.steps.forEach((step, i) => {
      const name = step.name ?? step.id ?? `step ${i}`;
      if (!condition(step.if, failedCode !== 0)) {
        steps.push({ name, ran: false, code: 0, stdout: '', stderr: '', outputs: {}, ...(step.uses ? { uses: step.uses } : {}) });
        return;
      }
      if (step.uses) {
        const w = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v))]));
        steps.push({ name, ran: true, code: 0, stdout: '', stderr: '', outputs: {}, uses: step.uses, with: w });
        return;
      }
      if (step.shell !== 'bash' || step.run === undefined) throw new Error(`step ${name}: only bash run steps are supported`);
      const outFile = join(tmp, `output-${i}`);
      writeFileSync(outFile, '');
      const script = join(tmp, `step-${i}.sh`);
      writeFileSync(script, interpolate(step.run));
      const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(String(v))]));
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
        cwd: opts.cwd,
        env: {
          ...process.env,
          ...opts.env,
          ...env,
          GITHUB_OUTPUT: outFile,
          GITHUB_STEP_SUMMARY: summaryFile,
          GITHUB_ACTION_PATH: opts.actionPath,
        },
        encoding: 'utf8',
        timeout: 10 * 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      const outputs: Record<string, string> = {};
      for (const line of readFileSync(outFile, 'utf8').split('\n')) {
        const eq = line.indexOf('=');
        if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
      }
      if (step.id) stepOutputs[step.id] = outputs;
      const code = r.status ?? 1;
      steps.push({ name, ran: true, code, stdout: r.stdout, stderr: r.stderr, outputs });
      if (code !== 0 && failedCode === 0) failedCode = code;
    });
    const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, o]) => [k, interpolate(o.value)]));
    return { code: failedCode, steps, outputs, summary: readFileSync(summaryFile, 'utf8') };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
