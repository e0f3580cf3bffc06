import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * A person at a terminal reads short human lines; a file or a pipe gets one JSON object a line
 * (src/log.ts decides by the stream's isTTY). The terminal is a real pseudo-terminal, made by
 * util-linux `script`, so the command sees what it sees in a shell.
 */
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('logs: human lines on a terminal, JSON lines elsewhere (needs util-linux script)', () => {
  const dirs: string[] = [];
  const dataDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'veronikai-tty-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  // Info, so the terminal shows log lines too (its default is warn).
  const env = { ...process.env, LOG_LEVEL: 'info', NO_COLOR: '1' };
  const bin = join(ROOT, 'bin', 'veronikai.js');

  it('on a terminal: no JSON line, each log a short human line', () => {
    const out = execFileSync('script', ['-qec', `node '${bin}' migrate --data-dir '${dataDir()}'`, '/dev/null'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const lines = out.split(/\r?\n/).filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
    expect(out).toMatch(/INFO.*migration applied/);
    expect(out).toMatch(/0001_create_listings/);
  }, 90_000);

  it('into a pipe: every log line is a JSON object with a level and a message', () => {
    const r = spawnSync('node', [bin, 'migrate', '--data-dir', dataDir()], { env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ level: expect.any(Number), msg: expect.any(String) });
    expect(lines.some((l) => (JSON.parse(l) as { migration?: string }).migration === '0001_create_listings.sql')).toBe(true);
  }, 90_000);
});
