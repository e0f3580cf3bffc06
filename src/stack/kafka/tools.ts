/** The programs the broker needs (Java, Maven): finding them on PATH and running them. */
import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { UsageError } from '../../config.js';

/** A tool the broker needs is missing or too old: one line saying what to install. */
export class MissingToolError extends UsageError {
  override name = 'MissingToolError';
}

export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, keeping the last 20 kB of each output stream for error messages. */
export function run(cmd: string, args: string[]): Promise<RunResult> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-20_000)));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
    p.once('error', rej);
    p.once('close', (code) => res({ code, stdout, stderr }));
  });
}

/** The last lines of a command's combined output, for an error message. */
export function outputTail(res: RunResult, lines: number): string {
  return (res.stdout + res.stderr).trim().split('\n').slice(-lines).join('\n');
}

/** The last lines of a file, or '' when it cannot be read. */
export function tailOf(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
