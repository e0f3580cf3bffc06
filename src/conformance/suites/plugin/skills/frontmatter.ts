import { parseFrontmatter } from '../../../plugin/frontmatter.js';
import type { Rule } from '../../../rule.js';
import { fail, unable } from '../run.js';
import { ap } from '../spec.js';
import type { SkillInput } from './input.js';

/** PLG-011: a discovered skill's SKILL.md is UTF-8 with strict YAML frontmatter (plugin/frontmatter.ts). */

export const FRONTMATTER: Rule<SkillInput, boolean> = {
  id: 'PLG-011',
  suite: 'agentPlugins',
  component: 'skills',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-010'],
  title: 'Skill SKILL.md has strict YAML frontmatter',
  description:
    "A discovered skill's SKILL.md (an immediate child of skills/, no recursion) is not UTF-8, has no --- delimited frontmatter, or its frontmatter is not one valid YAML mapping (duplicate keys are errors); the skill is skipped.",
  ...ap('§7.1 Skills; Agent Skills specification, SKILL.md format', '71-skills'),
  check: checkFrontmatter,
};

/** False when the skill is skipped (what needs its frontmatter is then blocked). */
function checkFrontmatter(input: SkillInput): boolean {
  const { run, md } = input;
  const file = md.path;
  const content = md.content;
  if (!content || 'error' in content) unable(run, FRONTMATTER, file, content ? content.error : `${file} was not read`);
  else if (!content.validUtf8) fail(run, FRONTMATTER, file, null, `${file} is not valid UTF-8.`, { line: 1, column: 1 });
  else {
    const fm = parseFrontmatter(content.text);
    if (fm.ok) {
      run.rec.pass(FRONTMATTER);
      input.front = fm;
      return true;
    }
    fail(run, FRONTMATTER, file, null, `${file}: ${fm.message}; the skill is skipped.`, fm.at);
  }
  run.rec.blockDependents(FRONTMATTER);
  return false;
}
