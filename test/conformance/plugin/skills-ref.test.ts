import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkOne } from './helpers.js';

/**
 * A second opinion on SKILL.md: the Agent Skills reference validator, the Python package
 * skills-ref (`skills_ref.validator.validate`), run over the same skill directories as our
 * PLG-011/PLG-012. .ci/run installs it into .venv; without that venv the test is skipped.
 *
 * Every case states both verdicts. Where they differ, `why` says which text of the
 * specifications decides (Agent Skills specification, docs/specification.mdx at 69ef37e9;
 * Agent Plugins 1.0.0 §7.1). The main source of difference: skills-ref parses frontmatter with
 * strictyaml, which reads every scalar as a string and refuses flow style, while we parse YAML
 * 1.2 (core schema) with the `yaml` library, as the specification says "YAML frontmatter".
 */

const PYTHON = join(import.meta.dirname, '../../../.venv/bin/python');

function referenceAvailable(): string | null {
  if (!existsSync(PYTHON))
    return 'no .venv with skills-ref (run .ci/run, or: python3 -m venv .venv && .venv/bin/pip install skills-ref==0.1.1)';
  try {
    execFileSync(PYTHON, ['-c', 'import skills_ref.validator'], { stdio: 'ignore', timeout: 20_000 });
    return null;
  } catch {
    return 'skills-ref is not importable from .venv';
  }
}

type Verdict = 'valid' | 'invalid' | 'not-discovered';
interface Case {
  dir: string;
  /** SKILL.md text; file name SKILL.md unless `file` says otherwise. */
  md: string;
  file?: string;
  ours: Verdict;
  ref: 'valid' | 'invalid';
  /** Why the two differ (present exactly when they do). */
  why?: string;
}

const fm = (body: string): string => `---\n${body}\n---\n\n# Body\n`;
const D = 'description: Does one thing. Use when that thing is needed.';

const CASES: Case[] = [
  // ---- both valid
  { dir: 'minimal', md: fm(`name: minimal\n${D}`), ours: 'valid', ref: 'valid' },
  {
    dir: 'pdf-processing',
    md: fm(
      `name: pdf-processing\ndescription: Extract PDF text, fill forms, merge files. Use when handling PDFs.\nlicense: Apache-2.0\ncompatibility: Requires git, docker, jq, and access to the internet\nallowed-tools: Bash(git:*) Bash(jq:*) Read\nmetadata:\n  author: example-org\n  version: "1.0"`,
    ),
    ours: 'valid',
    ref: 'valid',
  },
  { dir: 'données', md: fm(`name: données\n${D}`), ours: 'valid', ref: 'valid' },
  { dir: 'crlf', md: `---\r\nname: crlf\r\n${D}\r\n---\r\nbody\r\n`, ours: 'valid', ref: 'valid' },
  { dir: 'no-body', md: `---\nname: no-body\n${D}\n---\n`, ours: 'valid', ref: 'valid' },
  // ---- both invalid
  { dir: 'Upper-Case', md: fm(`name: Upper-Case\n${D}`), ours: 'invalid', ref: 'invalid' },
  { dir: '-lead', md: fm(`name: -lead\n${D}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'trail-', md: fm(`name: trail-\n${D}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'double--hyphen', md: fm(`name: double--hyphen\n${D}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'under_score', md: fm(`name: under_score\n${D}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'mismatch', md: fm(`name: other\n${D}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'no-name', md: fm(D), ours: 'invalid', ref: 'invalid' },
  { dir: 'no-description', md: fm('name: no-description'), ours: 'invalid', ref: 'invalid' },
  { dir: 'no-frontmatter', md: '# no-frontmatter\n', ours: 'invalid', ref: 'invalid' },
  { dir: 'not-closed', md: `---\nname: not-closed\n${D}\n`, ours: 'invalid', ref: 'invalid' },
  { dir: 'duplicate', md: fm(`name: duplicate\n${D}\n${D}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'sequence', md: fm('- name: sequence'), ours: 'invalid', ref: 'invalid' },
  { dir: 'bom', md: `\ufeff${fm(`name: bom\n${D}`)}`, ours: 'invalid', ref: 'invalid' },
  { dir: 'long-description', md: fm(`name: long-description\ndescription: ${'x'.repeat(1025)}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'long-compat', md: fm(`name: long-compat\n${D}\ncompatibility: ${'x'.repeat(501)}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'x'.repeat(65), md: fm(`name: ${'x'.repeat(65)}\n${D}`), ours: 'invalid', ref: 'invalid' },
  { dir: 'bad-yaml', md: fm('name: bad-yaml\ndescription: Use when: the colon'), ours: 'invalid', ref: 'invalid' },
  // ---- they differ
  {
    dir: 'unknown-field',
    md: fm(`name: unknown-field\n${D}\nauthor: someone`),
    ours: 'valid',
    ref: 'invalid',
    why: 'The Agent Skills frontmatter table lists six fields and their constraints but never says other keys are forbidden (no MUST); skills-ref enforces a closed set of its own. We do not invent the rule (seed 004 agrees: unknown frontmatter keys are not rejected).',
  },
  {
    dir: 'numeric-metadata-value',
    md: fm(`name: numeric-metadata-value\n${D}\nmetadata:\n  version: 1.0`),
    ours: 'invalid',
    ref: 'valid',
    why: 'metadata is "a map from string keys to string values"; in YAML 1.2 `1.0` is a float, which is why the specification\'s own example quotes `version: "1.0"`. strictyaml reads every scalar as a string.',
  },
  {
    dir: 'numeric-metadata-key',
    md: fm(`name: numeric-metadata-key\n${D}\nmetadata:\n  1: one`),
    ours: 'invalid',
    ref: 'valid',
    why: 'metadata keys must be strings; `1` is an integer key in YAML 1.2. skills-ref converts keys with str() (issue 12: numeric keys under metadata are errors).',
  },
  {
    dir: '123',
    md: fm(`name: 123\n${D}`),
    ours: 'invalid',
    ref: 'valid',
    why: 'name is a text field; unquoted `123` is an integer in YAML 1.2, not a string. strictyaml reads it as the string "123".',
  },
  {
    dir: 'bool-description',
    md: fm('name: bool-description\ndescription: true'),
    ours: 'invalid',
    ref: 'valid',
    why: 'description is text (1-1024 characters); unquoted `true` is a boolean in YAML 1.2. strictyaml reads it as a string.',
  },
  {
    dir: 'empty-compat',
    md: fm(`name: empty-compat\n${D}\ncompatibility: ""`),
    ours: 'invalid',
    ref: 'valid',
    why: 'compatibility "Must be 1-500 characters if provided"; skills-ref checks only the upper bound.',
  },
  {
    dir: 'license-list',
    md: fm(`name: license-list\n${D}\nlicense:\n  - MIT\n  - Apache-2.0`),
    ours: 'invalid',
    ref: 'valid',
    why: 'license is "License name or reference to a bundled license file", a string (issue 12: license and allowed-tools types); skills-ref does not check its type.',
  },
  {
    dir: 'flow-metadata',
    md: fm(`name: flow-metadata\n${D}\nmetadata: {author: example-org}`),
    ours: 'valid',
    ref: 'invalid',
    why: 'The specification asks for YAML frontmatter; a flow mapping is YAML. strictyaml refuses flow style by design, a restriction of that library, not of the specification.',
  },
  {
    dir: 'blank-description',
    md: fm('name: blank-description\ndescription: "   "'),
    ours: 'valid',
    ref: 'invalid',
    why: 'description "Must be 1-1024 characters" and be non-empty: three spaces are three characters. skills-ref strips whitespace first. (A poor description, but not one the text forbids.)',
  },
  {
    dir: 'padded',
    md: fm(`name: " padded "\n${D}`),
    ours: 'invalid',
    ref: 'valid',
    why: 'name "May only contain unicode lowercase alphanumeric characters and hyphens": spaces are not allowed. skills-ref strips the value before checking it.',
  },
  {
    dir: 'file',
    md: fm(`name: \ufb01le\n${D}`),
    ours: 'invalid',
    ref: 'valid',
    why: 'name "Must match the parent directory name": the ligature U+FB01 in "ﬁle" is not "fi". skills-ref compares after NFKC (compatibility) normalisation; we compare canonically equivalent text only (NFC), since compatibility folding makes different names equal.',
  },
  {
    dir: 'lowercase-file',
    file: 'skill.md',
    md: fm(`name: lowercase-file\n${D}`),
    ours: 'not-discovered',
    ref: 'valid',
    why: 'Agent Plugins §7.1 discovers a skill only from a path named exactly SKILL.md; skills-ref also accepts skill.md. Not a SKILL.md verdict: the skill is simply not discovered in a plugin.',
  },
];

const unavailable = referenceAvailable();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe.skipIf(unavailable !== null)(
  `skills-ref as a second opinion on SKILL.md${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    it('agrees with PLG-011/PLG-012 except where the table explains why', () => {
      const base = mkdtempSync(join(tmpdir(), 'veronikai-skills-ref-'));
      dirs.push(base);
      writeFileSync(
        join(base, 'plugin.json'),
        '{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"skills-ref-cases"}',
      );
      for (const c of CASES) {
        mkdirSync(join(base, 'skills', c.dir), { recursive: true });
        writeFileSync(join(base, 'skills', c.dir, c.file ?? 'SKILL.md'), c.md);
      }
      const script =
        'import json, sys\nfrom pathlib import Path\nfrom skills_ref.validator import validate\nprint(json.dumps({d: validate(Path(d)) for d in sys.argv[1:]}))';
      const out = execFileSync(PYTHON, ['-c', script, ...CASES.map((c) => join(base, 'skills', c.dir))], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      const refErrors = JSON.parse(out) as Record<string, string[]>;

      const report = checkOne(base);
      const oursOf = (c: Case): Verdict => {
        const file = `skills/${c.dir}/SKILL.md`;
        if (c.file !== undefined) return 'not-discovered';
        return report.findings.some((f) => f.file === file && (f.ruleId === 'PLG-011' || f.ruleId === 'PLG-012')) ? 'invalid' : 'valid';
      };
      const rows = CASES.map((c) => ({
        dir: c.dir.slice(0, 20),
        ours: oursOf(c),
        ref: (refErrors[join(base, 'skills', c.dir)]!.length === 0 ? 'valid' : 'invalid') as Case['ref'],
        expected: c,
      }));
      for (const r of rows) {
        expect(r.ours, `ours on ${r.dir}`).toBe(r.expected.ours);
        expect(r.ref, `skills-ref on ${r.dir}: ${JSON.stringify(refErrors[join(base, 'skills', r.expected.dir)])}`).toBe(r.expected.ref);
        expect(r.expected.why !== undefined, `${r.dir}: a disagreement needs its reason, an agreement none`).toBe(r.ours !== r.ref);
      }
      const agree = rows.filter((r) => r.ours === r.ref).length;
      expect(agree).toBe(22);
      expect(rows.length - agree).toBe(12);
    });
  },
);
