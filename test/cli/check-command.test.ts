import { afterEach, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import type * as ReportModule from '../../src/conformance/report.js';
import type * as KeysModule from '../../src/signing/keys.js';
import { FIXTURES } from '../conformance/helpers.js';

/**
 * `runCheck` in process: an error during a check that is not a usage error (a renderer or the
 * signing key loader throwing) exits 2 with a message on stderr and writes no partial report.
 */

const failures = vi.hoisted(() => ({ render: false, key: false }));

vi.mock('../../src/conformance/report.js', async (importOriginal) => {
  const orig = await importOriginal<typeof ReportModule>();
  return {
    ...orig,
    renderTerminal: (...args: Parameters<typeof orig.renderTerminal>) => {
      if (failures.render) throw new RangeError('renderer exploded');
      return orig.renderTerminal(...args);
    },
  };
});

vi.mock('../../src/signing/keys.js', async (importOriginal) => {
  const orig = await importOriginal<typeof KeysModule>();
  return {
    ...orig,
    loadSigningKey: (...args: Parameters<typeof orig.loadSigningKey>) => {
      if (failures.key) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return orig.loadSigningKey(...args);
    },
  };
});

const { runCheck } = await import('../../src/cli/commands/check.js');
const { UsageError } = await import('../../src/config.js');

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (err.push(String(s)), true));
  return { out, err };
}

afterEach(() => {
  vi.restoreAllMocks();
  failures.render = false;
  failures.key = false;
});

const failing = join(FIXTURES, 'a2a', 'struct-003-skill-tags-42.json');

describe('runCheck exit codes on errors that are not usage errors', () => {
  it('a renderer that throws: exit 2 with a clear message, no partial output (even on a failing card)', async () => {
    failures.render = true;
    const { out, err } = capture();
    const code = await runCheck(failing, {});
    vi.restoreAllMocks();
    expect(code).toBe(2);
    expect(out.join('')).toBe('');
    expect(err.join('')).toBe('veronikai: the check could not complete (error while writing the report): RangeError: renderer exploded\n');
  });

  it('the signing key loader failing with a system error: exit 2, not 1', async () => {
    failures.key = true;
    const { out, err } = capture();
    const code = await runCheck(failing, { sign: true, json: true });
    vi.restoreAllMocks();
    expect(code).toBe(2);
    expect(out.join('')).toBe('');
    expect(err.join('')).toMatch(/could not complete \(error while signing the verdicts\): EACCES: permission denied/);
  });

  it('without errors the same check exits 1 (the card fails), and usage errors still propagate as usage errors', async () => {
    const { out } = capture();
    const code = await runCheck(failing, {});
    vi.restoreAllMocks();
    expect(code).toBe(1);
    expect(out.join('')).toContain('✗ FAIL');
    await expect(runCheck(join(FIXTURES, 'nope.json'), {})).rejects.toBeInstanceOf(UsageError);
  });
});
