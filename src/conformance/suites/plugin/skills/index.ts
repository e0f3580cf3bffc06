import type { FileEntry, Resolution, SkillEntry } from '../../../plugin/snapshot.js';
import type { Rule } from '../../../rule.js';
import { CONTAINED } from '../containment.js';
import { LOCATIONS } from '../locations.js';
import { blockLocation, unable, type PluginRun } from '../run.js';
import { SKILL_FIELDS } from './fields.js';
import { FRONTMATTER } from './frontmatter.js';
import type { SkillInput } from './input.js';

/**
 * Judges skills/: an invalid location or skill skips only that (§6.2, §7.1). Skills are the
 * immediate children of skills/ that are directories holding a SKILL.md (exact name) that
 * resolves to a regular file; anything else is not a skill, and no missing-skill error is invented.
 */
export function evaluateSkills(run: PluginRun): void {
  const s = run.snap.skills;
  const state = run.components.skills;
  if (!s) return; // not read by this check
  if (!s.present) {
    run.rec.pass(LOCATIONS);
    state.state = 'absent';
    return;
  }
  if (!CONTAINED.check({ run, file: 'skills', res: s.resolution })) {
    blockLocation(run, LOCATIONS, 'skills');
    state.state = s.resolution?.status === 'error' ? 'incomplete' : 'invalid';
    return;
  }
  if (!LOCATIONS.check({ run, component: 'skills', kind: inside(s.resolution).kind })) {
    state.state = 'invalid';
    return;
  }
  state.state = 'valid';
  if (s.error !== undefined) {
    unable(run, FRONTMATTER, 'skills', `skills/ could not be listed completely: ${s.error}`);
    state.state = 'incomplete';
  }
  for (const child of s.children ?? []) {
    const md = skillFile(run, child);
    if (md === null) continue;
    state.discovered++;
    if (evaluateSkill(run, child.name, md)) state.valid++;
  }
  if (state.state === 'valid' && state.valid < state.discovered) state.state = 'invalid';
}

function inside(res: Resolution | undefined): Extract<Resolution, { status: 'inside' }> {
  return res as Extract<Resolution, { status: 'inside' }>; // PLG-002 passed for it
}

/** The child's SKILL.md when the child is a skill, or null. */
function skillFile(run: PluginRun, child: SkillEntry): FileEntry | null {
  const dir = `skills/${child.name}`;
  const skillRules = run.rec.rules.ofComponent('skills');
  if (!CONTAINED.check({ run, file: dir, res: child.resolution })) {
    run.rec.block(...skillRules);
    return null;
  }
  if (child.resolution.status !== 'inside' || child.resolution.kind !== 'directory') return null; // not a skill directory
  if (child.error !== undefined) {
    unable(run, FRONTMATTER, dir, `${dir} could not be listed: ${child.error}`);
    return null;
  }
  const md = child.skillMd;
  if (!md || !md.present) return null; // no SKILL.md: not a skill
  if (!CONTAINED.check({ run, file: md.path, res: md.resolution })) {
    run.rec.block(...skillRules);
    return null;
  }
  return inside(md.resolution).kind === 'file' ? md : null; // SKILL.md must resolve to a regular file to make a skill
}

/** The rules judged on each skill, in order; a failure skips the skill and blocks the rules that need it. */
const SKILL_RULES: ReadonlyArray<Rule<SkillInput, boolean>> = [FRONTMATTER, SKILL_FIELDS];

/** True when the skill is valid. */
function evaluateSkill(run: PluginRun, dirName: string, md: FileEntry): boolean {
  const input: SkillInput = { run, dirName, md };
  return SKILL_RULES.every((rule) => rule.check(input));
}
