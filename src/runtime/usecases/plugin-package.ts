import { closeSync, constants, fstatSync, lstatSync, opendirSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { UsageError } from '../../config.js';
import {
  buildPluginReport,
  buildPluginReportSet,
  componentsFor,
  evaluatePluginPackage,
  getPluginRule,
  mcpPathsToResolve,
  type FileContent,
  type FileEntry,
  type PluginComponent,
  type PluginReport,
  type PluginReportSet,
  type PluginSnapshot,
  type Resolution,
  type SkillEntry,
  type SkillsEntry,
} from '../../conformance/plugin/index.js';

/**
 * Reads an Agent Plugins package into the snapshot the rule engine judges
 * (src/conformance/plugin/). Static and contained: it never executes anything, never follows
 * a path out of the package root, and reads within bounds (bytes per file and in all, entries
 * per directory, symbolic-link hops, path segments). Every path is resolved here component by
 * component with real `..` semantics: a symbolic link is read and its target walked from the
 * link's own directory, `..` goes to the parent of the real directory reached so far, and the
 * walk stops — before any lstat — the moment it would leave the root (a relative `..` above
 * the root, or an absolute target outside it). A missing tail is walked lexically and
 * reported as missing, not judged.
 *
 * All file-system access goes through a `PluginIo`, so tests can watch every path touched.
 */

export type IoKind = 'file' | 'directory' | 'symlink' | 'other';

export interface PluginIo {
  /** The real path of the root the user named (the one path read that the user, not the package, chose). */
  realpath(path: string): string;
  /** Kind of the root, following links (the user may name a link to the package). */
  statKind(path: string): IoKind;
  /** Kind of a path without following a final symbolic link; throws an errno error (ENOENT, ENOTDIR, …). */
  lstatKind(path: string): IoKind;
  readlink(path: string): string;
  /** Up to `max + 1` entry names of a directory (more than `max` means truncated). */
  list(path: string, max: number): string[];
  /** A regular file's bytes, at most `max`; null when it is larger. Never follows a final link, never blocks on a FIFO. */
  read(path: string, max: number): Buffer | null;
}

function kindOf(st: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): IoKind {
  return st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other';
}

const READ_BLOCK = 64 * 1024;

export const nodePluginIo: PluginIo = {
  realpath: (p) => realpathSync(p),
  statKind: (p) => kindOf(statSync(p)),
  lstatKind: (p) => kindOf(lstatSync(p)),
  readlink: (p) => readlinkSync(p),
  list(p, max) {
    const dir = opendirSync(p);
    const out: string[] = [];
    try {
      for (let e = dir.readSync(); e !== null && out.length <= max; e = dir.readSync()) out.push(e.name);
    } finally {
      dir.closeSync();
    }
    return out;
  },
  read(p, max) {
    const fd = openSync(p, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
      if (st.size > max) return null;
      let buf = Buffer.allocUnsafe(Math.min(max + 1, st.size + READ_BLOCK));
      let total = 0;
      for (;;) {
        if (total > max) return null;
        if (total === buf.length) {
          const bigger = Buffer.allocUnsafe(Math.min(max + 1, buf.length * 2 + READ_BLOCK));
          buf.copy(bigger, 0, 0, total);
          buf = bigger;
        }
        const n = readSync(fd, buf, total, buf.length - total, null);
        if (n === 0) break;
        total += n;
      }
      return total > max ? null : buf.subarray(0, total);
    } finally {
      closeSync(fd);
    }
  },
};

export interface PluginReadLimits {
  /** Largest plugin.json, mcp.json or SKILL.md read. */
  maxFileBytes: number;
  /** All files of one package together. */
  maxTotalBytes: number;
  /** Entries of skills/ (each immediate child is one candidate skill). */
  maxSkillEntries: number;
  /** Entries read from the root or a skill directory. */
  maxDirEntries: number;
  /** Symbolic links followed while resolving one path. */
  maxLinkHops: number;
  /** Segments of one path, link targets included. */
  maxSegments: number;
  /** Paths of mcp.json resolved. */
  maxMcpPaths: number;
  /** --recursive: directory depth searched, directories visited, packages checked. */
  maxSearchDepth: number;
  maxSearchDirs: number;
  maxPackages: number;
}

export const PLUGIN_READ_LIMITS: PluginReadLimits = {
  maxFileBytes: 1024 * 1024,
  maxTotalBytes: 16 * 1024 * 1024,
  maxSkillEntries: 1000,
  maxDirEntries: 10_000,
  maxLinkHops: 40,
  maxSegments: 512,
  maxMcpPaths: 1000,
  maxSearchDepth: 6,
  maxSearchDirs: 10_000,
  maxPackages: 1000,
};

export interface ReadPluginOptions {
  /** Components to read (default: all). The manifest is always read. */
  components?: ReadonlySet<PluginComponent>;
  limits?: Partial<PluginReadLimits>;
  io?: PluginIo;
}

type Walk = { status: 'inside'; kind: 'file' | 'directory' | 'other' | 'missing'; abs: string } | Exclude<Resolution, { status: 'inside' }>;

const errCode = (err: unknown): string => (err as NodeJS.ErrnoException | null)?.code ?? (err instanceof Error ? err.message : String(err));

/** Resolves root-relative paths inside one real root (see the module comment). */
export class RootResolver {
  private hops = 0;
  private segments = 0;

  constructor(
    readonly root: string,
    private readonly io: PluginIo,
    private readonly limits: Pick<PluginReadLimits, 'maxLinkHops' | 'maxSegments'> = PLUGIN_READ_LIMITS,
  ) {}

  /** Root-relative display form of an absolute path inside the root. */
  rel(abs: string): string {
    const r = relative(this.root, abs).split(sep).join('/');
    return r === '' ? '.' : r;
  }

  resolve(relPath: string): Resolution {
    this.hops = 0;
    this.segments = 0;
    try {
      const w = this.walk(this.root, relPath.split('/'));
      if (w.status !== 'inside') return w;
      return { status: 'inside', kind: w.kind, real: w.kind === 'missing' ? relPath : this.rel(w.abs) };
    } catch (err) {
      return { status: 'error', detail: `${relPath}: ${errCode(err)}` };
    }
  }

  private walk(start: string, segs: string[]): Walk {
    this.segments += segs.length;
    if (this.segments > this.limits.maxSegments)
      return { status: 'error', detail: `more than ${this.limits.maxSegments} path segments (link targets included)` };
    let cur = start;
    let kind: 'file' | 'directory' | 'other' = 'directory';
    let missing = 0; // segments walked lexically past the last existing one
    let kindBeforeMissing: 'file' | 'directory' | 'other' = 'directory';
    for (const seg of segs) {
      if (seg === '' || seg === '.') continue;
      if (seg === '..') {
        if (missing > 0) {
          missing--;
          cur = dirname(cur);
          if (missing === 0) kind = kindBeforeMissing;
          continue;
        }
        if (cur === this.root) return { status: 'escape', detail: '.. leaves the plugin root' };
        cur = dirname(cur);
        kind = 'directory';
        continue;
      }
      const next = join(cur, seg);
      if (missing > 0 || kind !== 'directory') {
        if (missing === 0) kindBeforeMissing = kind;
        missing++;
        cur = next;
        continue;
      }
      let k: IoKind;
      try {
        k = this.io.lstatKind(next);
      } catch (err) {
        const code = errCode(err);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
        kindBeforeMissing = kind;
        missing = 1;
        cur = next;
        continue;
      }
      if (k !== 'symlink') {
        cur = next;
        kind = k;
        continue;
      }
      if (++this.hops > this.limits.maxLinkHops)
        return { status: 'broken', detail: `more than ${this.limits.maxLinkHops} symbolic links on the way (a loop) at ${this.rel(next)}` };
      const target = this.io.readlink(next);
      let w: Walk;
      if (isAbsolute(target)) {
        if (target !== this.root && !target.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep)) {
          return { status: 'escape', detail: `${this.rel(next)} links to an absolute path outside the plugin root` };
        }
        w = this.walk(this.root, target.slice(this.root.length).split(sep));
      } else {
        w = this.walk(cur, target.split('/'));
      }
      if (w.status === 'escape')
        return { status: 'escape', detail: `${this.rel(next)} -> ${JSON.stringify(target.slice(0, 200))}: ${w.detail}` };
      if (w.status !== 'inside') return w;
      if (w.kind === 'missing')
        return { status: 'broken', detail: `${this.rel(next)} is a dangling symbolic link (-> ${JSON.stringify(target.slice(0, 200))})` };
      cur = w.abs;
      kind = w.kind;
    }
    return { status: 'inside', kind: missing > 0 ? 'missing' : kind, abs: cur };
  }
}

class ByteBudget {
  used = 0;
  constructor(readonly max: number) {}
}

function readContent(io: PluginIo, abs: string, limits: PluginReadLimits, budget: ByteBudget, display: string): FileContent {
  const room = Math.min(limits.maxFileBytes, budget.max - budget.used);
  let buf: Buffer | null;
  try {
    buf = io.read(abs, room);
  } catch (err) {
    return { error: `${display} could not be read: ${errCode(err)}` };
  }
  if (buf === null) {
    return {
      error:
        room < limits.maxFileBytes
          ? `reading ${display} would pass the bound of ${budget.max} bytes for the whole package`
          : `${display} is larger than ${limits.maxFileBytes} bytes`,
    };
  }
  budget.used += buf.length;
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf), validUtf8: true };
  } catch {
    return { text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(buf), validUtf8: false };
  }
}

function listNames(io: PluginIo, abs: string, max: number): { names: string[]; error?: string } {
  try {
    const names = io.list(abs, max);
    if (names.length > max) return { names: names.slice(0, max).sort(), error: `more than ${max} entries` };
    return { names: names.sort() };
  } catch (err) {
    return { names: [], error: errCode(err) };
  }
}

/** Reads one package root into a snapshot. `root` must be a directory. */
export function readPluginPackage(root: string, opts: ReadPluginOptions = {}): PluginSnapshot {
  const io = opts.io ?? nodePluginIo;
  const limits = { ...PLUGIN_READ_LIMITS, ...opts.limits };
  const components = opts.components ?? new Set<PluginComponent>(['manifest', 'skills', 'mcp']);
  const realRoot = io.realpath(root);
  const resolver = new RootResolver(realRoot, io, limits);
  const budget = new ByteBudget(limits.maxTotalBytes);
  const abs = (r: Extract<Resolution, { status: 'inside' }>): string => (r.real === '.' ? realRoot : join(realRoot, ...r.real.split('/')));

  const top = listNames(io, realRoot, limits.maxDirEntries);
  const has = (name: string): boolean => top.names.includes(name);
  const fileEntry = (path: string, present: boolean): FileEntry => {
    if (!present) return { path, present };
    const resolution = resolver.resolve(path);
    const e: FileEntry = { path, present, resolution };
    if (resolution.status === 'inside' && resolution.kind === 'file') e.content = readContent(io, abs(resolution), limits, budget, path);
    return e;
  };
  const snap: PluginSnapshot = { manifest: { path: 'plugin.json', present: false } };
  if (top.error !== undefined && !top.names.includes('plugin.json')) {
    snap.rootError = `the plugin root could not be listed (${top.error})`;
    return snap;
  }
  snap.manifest = fileEntry('plugin.json', has('plugin.json'));

  if (components.has('skills')) {
    const skills: SkillsEntry = { present: has('skills') };
    if (skills.present) {
      skills.resolution = resolver.resolve('skills');
      if (skills.resolution.status === 'inside' && skills.resolution.kind === 'directory') {
        const listed = listNames(io, abs(skills.resolution), limits.maxSkillEntries);
        if (listed.error !== undefined) skills.error = listed.error;
        skills.children = listed.names.map((name) => readSkill(io, resolver, name, limits, budget, abs));
      }
    }
    snap.skills = skills;
  }

  if (components.has('mcp')) {
    snap.mcp = fileEntry('mcp.json', has('mcp.json'));
    const c = snap.mcp.content;
    if (c && 'text' in c && c.validUtf8) {
      const keys = mcpPathsToResolve(c.text).slice(0, limits.maxMcpPaths);
      snap.paths = Object.fromEntries(keys.map((k) => [k, resolver.resolve(k)]));
    }
  }
  return snap;
}

function readSkill(
  io: PluginIo,
  resolver: RootResolver,
  name: string,
  limits: PluginReadLimits,
  budget: ByteBudget,
  abs: (r: Extract<Resolution, { status: 'inside' }>) => string,
): SkillEntry {
  const dir = `skills/${name}`;
  const resolution = resolver.resolve(dir);
  const entry: SkillEntry = { name, resolution };
  if (resolution.status !== 'inside' || resolution.kind !== 'directory') return entry;
  const listed = listNames(io, abs(resolution), limits.maxDirEntries);
  if (listed.error !== undefined && !listed.names.includes('SKILL.md')) {
    entry.error = listed.error;
    return entry;
  }
  const path = `${dir}/SKILL.md`;
  if (!listed.names.includes('SKILL.md')) return entry;
  const md = resolver.resolve(path);
  entry.skillMd = { path, present: true, resolution: md };
  if (md.status === 'inside' && md.kind === 'file') entry.skillMd.content = readContent(io, abs(md), limits, budget, path);
  return entry;
}

// ------------------------------------------------------------------ checking directories

export interface CheckPluginOptions {
  /** Evaluate one rule (exact ID) and the rules it needs. */
  rule?: string | null;
  /** The directory may hold several packages: check each directory below it that has a plugin.json. */
  recursive?: boolean;
  limits?: Partial<PluginReadLimits>;
  io?: PluginIo;
}

export type PluginDirectoryResult =
  { recursive: false; report: PluginReport; exitCode: 0 | 1 | 2 } | { recursive: true; report: PluginReportSet; exitCode: 0 | 1 | 2 };

/** True when `path` names a directory (how `check` recognises a plugin package target). */
export function isDirectory(path: string, io: PluginIo = nodePluginIo): boolean {
  try {
    return io.statKind(path) === 'directory';
  } catch {
    return false;
  }
}

/** Checks one package (`recursive` off) or every package below a directory (`recursive` on). */
export function checkPluginDirectory(path: string, opts: CheckPluginOptions = {}): PluginDirectoryResult {
  const io = opts.io ?? nodePluginIo;
  const rule = opts.rule ?? null;
  if (rule !== null && !getPluginRule(rule)) throw new UsageError(`unknown plugin rule "${rule}" (see veronikai check --list-rules)`);
  let kind: IoKind;
  try {
    kind = io.statKind(path);
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${errCode(err)}`);
  }
  if (kind !== 'directory')
    throw new UsageError(`${path} is not a directory: a plugin package is a directory with plugin.json at its root`);
  const one = (dir: string, shown: string): PluginReport => {
    const snap = readPluginPackage(dir, { components: componentsFor(rule), limits: opts.limits, io });
    return buildPluginReport(shown, evaluatePluginPackage(snap, { rule }));
  };
  if (!opts.recursive) {
    const report = one(path, path);
    return { recursive: false, report, exitCode: report.exitCode };
  }
  const found = findPackages(path, io, { ...PLUGIN_READ_LIMITS, ...opts.limits });
  const packages = found.dirs.map((rel) => {
    const shown = rel === '.' ? path : join(path, ...rel.split('/'));
    return { path: shown, report: one(shown, shown) };
  });
  const report = buildPluginReportSet(path, packages, found.note);
  return { recursive: true, report, exitCode: report.exitCode };
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);

/**
 * Package roots at or below `path`: directories with an entry named plugin.json, searched
 * breadth-first without following symbolic links and without descending into a package.
 */
export function findPackages(path: string, io: PluginIo, limits: PluginReadLimits): { dirs: string[]; note: string | null } {
  const base = io.realpath(path);
  const dirs: string[] = [];
  let note: string | null = null;
  let visited = 0;
  const queue: Array<{ abs: string; rel: string; depth: number }> = [{ abs: base, rel: '.', depth: 0 }];
  while (queue.length > 0) {
    const d = queue.shift()!;
    if (++visited > limits.maxSearchDirs) {
      note = `the search stopped after ${limits.maxSearchDirs} directories; packages below were not checked`;
      break;
    }
    const listed = listNames(io, d.abs, limits.maxDirEntries);
    if (listed.error !== undefined && !listed.names.includes('plugin.json')) {
      note = `${d.rel} could not be searched completely (${listed.error})`;
    }
    if (listed.names.includes('plugin.json')) {
      if (dirs.length >= limits.maxPackages) {
        note = `more than ${limits.maxPackages} packages; the rest were not checked`;
        break;
      }
      dirs.push(d.rel);
      continue;
    }
    if (d.depth >= limits.maxSearchDepth) continue;
    for (const name of listed.names) {
      if (SKIP_DIRS.has(name)) continue;
      const abs = join(d.abs, name);
      let k: IoKind;
      try {
        k = io.lstatKind(abs);
      } catch {
        continue;
      }
      if (k === 'directory') queue.push({ abs, rel: d.rel === '.' ? name : `${d.rel}/${name}`, depth: d.depth + 1 });
    }
  }
  return { dirs, note };
}
