import { chmodSync, mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../config.js';
import type { Logger } from '../log.js';

/**
 * The data directory is owner-only: it holds the embedded warehouse, the broker's log, the
 * running instance's token and the signing key, none of which other local users may read.
 * Modes are set with chmod after mkdir, since mkdir's mode passes through the process umask
 * (which may take the owner's own bits away, and never adds any).
 */

export const PRIVATE_DIR_MODE = 0o700;

const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/**
 * Creates the directory 0700, or sets an existing one to 0700 when group or others can reach it
 * (saying so in one log line) or its owner lacks a bit. POSIX modes only: elsewhere the bits mean
 * nothing, and the directory is only created.
 */
export function ensurePrivateDir(path: string, log: Pick<Logger, 'warn'>): void {
  if (process.platform === 'win32') {
    mkdirSync(path, { recursive: true });
    return;
  }
  let before: Stats;
  try {
    before = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UsageError(`data directory ${path}: cannot read it (${(err as Error).message})`);
    // Parents as `mkdir -p` makes them (the umask decides); the directory itself owner-only.
    mkdirSync(dirname(path), { recursive: true });
    try {
      mkdirSync(path, { mode: PRIVATE_DIR_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    setMode(path, '');
    return;
  }
  if (!before.isDirectory()) throw new UsageError(`data directory ${path} is not a directory`);
  const mode = before.mode & 0o777;
  if (mode === PRIVATE_DIR_MODE) return;
  setMode(path, octal(mode));
  if ((mode & 0o077) !== 0) {
    log.warn(
      { dataDir: path, mode: octal(mode), now: octal(PRIVATE_DIR_MODE) },
      `data directory ${path} was open to other users (mode ${octal(mode)}): set to 0700`,
    );
  }
}

function setMode(path: string, was: string): void {
  try {
    chmodSync(path, PRIVATE_DIR_MODE);
  } catch (err) {
    const from = was ? ` (mode ${was})` : '';
    throw new UsageError(
      `data directory ${path}${from}: cannot make it owner-only with chmod 700 (${(err as Error).message}); fix its owner or choose another --data-dir`,
    );
  }
}
