import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, findCommand, invokedCommand } from '../../src/cli/command-table.js';
import { ROOT } from '../helpers/cli.js';

/** The command table: every command module has an entry, and each entry registers its own command. */

describe('the command table', () => {
  it('has one entry per module under src/cli/commands, each name once', () => {
    const modules = readdirSync(join(ROOT, 'src', 'cli', 'commands'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .sort();
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(modules);
  });

  it('loads, for each entry, the module that registers a command of that name (and only it)', async () => {
    for (const entry of COMMANDS) {
      const program = new Command('veronikai');
      (await entry.load())(program);
      expect(
        program.commands.map((c) => c.name()),
        entry.name,
      ).toEqual([entry.name]);
      expect(entry.summary.length, entry.name).toBeGreaterThan(10);
    }
  });

  it('finds the invoked command on a command line', () => {
    expect(invokedCommand(['check', '--kind', 'card', 'x.json'])).toBe('check');
    expect(invokedCommand(['--help'])).toBeUndefined();
    expect(invokedCommand(['-V'])).toBeUndefined();
    expect(invokedCommand([])).toBeUndefined();
    expect(invokedCommand(['help', 'inspect'])).toBe('inspect');
    expect(invokedCommand(['help'])).toBeUndefined();
    expect(findCommand('check')?.name).toBe('check');
    expect(findCommand('chek')).toBeUndefined();
    expect(findCommand('')).toBeUndefined();
  });
});
