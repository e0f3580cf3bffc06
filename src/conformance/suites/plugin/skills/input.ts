import type { FrontmatterResult } from '../../../plugin/frontmatter.js';
import type { FileEntry } from '../../../plugin/snapshot.js';
import type { PluginRun } from '../run.js';

/** What the rules on one skill read: its SKILL.md, and the frontmatter PLG-011 parsed from it. */
export interface SkillInput {
  run: PluginRun;
  /** The skill directory's name under skills/. */
  dirName: string;
  md: FileEntry;
  /** Set by PLG-011 when the frontmatter is one valid YAML mapping. */
  front?: Extract<FrontmatterResult, { ok: true }>;
}
