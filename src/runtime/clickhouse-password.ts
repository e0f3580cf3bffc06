import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS, UsageError, type Config } from '../config.js';

/**
 * The public ClickHouse HTTP interface's password: VERONIKAI_CLICKHOUSE_HTTP_PASSWORD, else one
 * generated at the first start and kept owner-only in the data directory, so that a dashboard
 * configured with it keeps working after a restart. The interface never runs without one.
 */

export const CLICKHOUSE_PASSWORD_FILE = 'clickhouse-http-password';

export interface PublicCredentials {
  user: string;
  password: string;
  /** The file the password is in; null when it came from the environment. */
  file: string | null;
}

/** Any access by group or others: the password file must have none. */
const OPEN_BITS = 0o077;

/** The file's password, its mode judged on the descriptor it is read from (no stat-then-read race). */
function readPasswordFile(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if (process.platform !== 'win32' && (mode & OPEN_BITS) !== 0) {
      throw new UsageError(
        `the ClickHouse HTTP interface's password file ${path} can be read or written by group or others (mode ${mode.toString(8).padStart(4, '0')}); ` +
          `make it private with \`chmod 600 ${path}\`, or remove it to have a new password generated`,
      );
    }
    const password = readFileSync(fd, 'utf8').trim();
    if (password === '')
      throw new UsageError(`the ClickHouse HTTP interface's password file ${path} is empty; remove it to have a new password generated`);
    return password;
  } finally {
    closeSync(fd);
  }
}

/** The configured user and password, generating the password file when there is neither it nor the variable. */
export function publicCredentials(config: Config): PublicCredentials {
  const { user, password } = config.clickhouseInterface;
  if (password) return { user, password, file: null };
  const path = join(config.dataDir, CLICKHOUSE_PASSWORD_FILE);
  try {
    return { user, password: readPasswordFile(path), file: path };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Written whole under another name, then linked: a reader never sees half of it, and of two
  // processes starting at once, the second reads the first one's password instead of replacing it.
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return { user, password: readPasswordFile(path), file: path };
}

/** Where the password is, for the start message (never the password itself). */
export function passwordSource(credentials: PublicCredentials): string {
  return credentials.file ? `in ${credentials.file}` : `from ${SETTINGS.clickhouseHttpPassword.env}`;
}
