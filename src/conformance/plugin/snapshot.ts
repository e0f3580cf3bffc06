/**
 * What the rule engine judges: a snapshot of one plugin package, built by the runtime
 * (src/runtime/usecases/plugin-package.ts) from the file system. Plain data; every path is relative
 * to the plugin root with `/` separators. The engine never touches the file system.
 */

/** Where a package path leads once every symbolic link on it is resolved (real `..` semantics). */
export type Resolution =
  /** Inside the root: an existing file, directory or other node, or a missing path (a missing tail is not judged). */
  | { status: 'inside'; kind: 'file' | 'directory' | 'other' | 'missing'; real: string }
  /** The path leaves the root (through `..` or a symbolic link): never followed further. */
  | { status: 'escape'; detail: string }
  /** A symbolic link on the path is dangling or loops. */
  | { status: 'broken'; detail: string }
  /** The path could not be inspected (an I/O error or a bound of the reader): unable to complete. */
  | { status: 'error'; detail: string };

/** File text as read: `validUtf8: false` when the bytes were not UTF-8 (the text then holds U+FFFD). */
export type FileContent = { text: string; validUtf8: boolean } | { error: string };

export interface FileEntry {
  /** Root-relative path as a package author writes it (`plugin.json`, `skills/x/SKILL.md`). */
  path: string;
  /** False when no entry of exactly this name exists (an absent fixed location). */
  present: boolean;
  resolution?: Resolution;
  /** Present when the path resolved inside the root to a regular file and was read. */
  content?: FileContent;
}

export interface SkillEntry {
  /** The immediate child's name in skills/. */
  name: string;
  resolution: Resolution;
  /** The child's `SKILL.md` (exact name); absent when the child is not a directory or has no such entry. */
  skillMd?: FileEntry;
  /** The child directory could not be listed. */
  error?: string;
}

export interface SkillsEntry {
  present: boolean;
  resolution?: Resolution;
  /** Immediate children of skills/, sorted by name (only when skills/ is a directory inside the root). */
  children?: SkillEntry[];
  /** skills/ could not be listed completely (an I/O error or the reader's bound). */
  error?: string;
}

export interface PluginSnapshot {
  /** False when the root's own entries could not be listed. */
  rootError?: string;
  manifest: FileEntry;
  /** Absent when this check did not read skills (a --rule run that does not need them). */
  skills?: SkillsEntry;
  /** Absent when this check did not read the MCP configuration. */
  mcp?: FileEntry;
  /**
   * Resolutions of the root-relative paths mcp.json names (see `mcpPathsToResolve`), keyed
   * by that path. A path missing here was not resolved (unable to complete).
   */
  paths?: Record<string, Resolution>;
}
