import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/config.js';
import { ensurePrivateDir } from '../../src/util/private-dir.js';

/** src/util/private-dir.ts: the data directory ends owner-only (0700), whatever the umask, and a loosened one is said. */

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')('ensurePrivateDir', () => {
  const root = mkdtempSync(join(tmpdir(), 'veronikai-private-dir-'));
  let lines: Array<Record<string, unknown>>;
  let log: ReturnType<typeof pino>;
  let umask: number;
  beforeEach(() => {
    lines = [];
    log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
    umask = process.umask();
  });
  afterEach(() => void process.umask(umask));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('creates a missing directory 0700 (and its parents), even under a umask that takes owner bits, and says nothing', () => {
    // mkdir's mode alone would give 0500 here: the mode is set after it.
    process.umask(0o277);
    const dir = join(root, 'fresh');
    ensurePrivateDir(dir, log);
    process.umask(umask);
    expect(modeOf(dir)).toBe(0o700);
    ensurePrivateDir(join(root, 'parent', 'data'), log);
    expect(modeOf(join(root, 'parent', 'data'))).toBe(0o700);
    writeFileSync(join(dir, 'probe'), 'x'); // the owner can write in it
    expect(lines).toEqual([]);
  });

  it('under the usual umask 022 a new directory is 0700, not 0755', () => {
    process.umask(0o022);
    const dir = join(root, 'usual');
    ensurePrivateDir(dir, log);
    expect(modeOf(dir)).toBe(0o700);
  });

  it('sets an existing 0755 directory to 0700 and logs one structured line saying so', () => {
    const dir = join(root, 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    ensurePrivateDir(dir, log);
    expect(modeOf(dir)).toBe(0o700);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, dataDir: dir, mode: '0755', now: '0700' });
    expect(lines[0]!.msg).toBe(`data directory ${dir} was open to other users (mode 0755): set to 0700`);
    // Already private: nothing to do, nothing said.
    ensurePrivateDir(dir, log);
    expect(lines).toHaveLength(1);
  });

  it('tightens group-only or other-only access too, and restores a missing owner bit silently', () => {
    for (const mode of [0o750, 0o701, 0o710]) {
      const dir = join(root, `m${mode.toString(8)}`);
      mkdirSync(dir);
      chmodSync(dir, mode);
      ensurePrivateDir(dir, log);
      expect(modeOf(dir), mode.toString(8)).toBe(0o700);
    }
    expect(lines.map((l) => l.mode)).toEqual(['0750', '0701', '0710']);
    const owner = join(root, 'owner-read-only');
    mkdirSync(owner);
    chmodSync(owner, 0o500);
    lines.length = 0;
    ensurePrivateDir(owner, log);
    expect(modeOf(owner)).toBe(0o700);
    expect(lines).toEqual([]);
  });

  it('refuses a path that is a file, with a usage error', () => {
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    expect(() => ensurePrivateDir(file, log)).toThrow(UsageError);
    expect(() => ensurePrivateDir(file, log)).toThrow(/is not a directory/);
  });
});
