import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, where bin/veronikai.js lives. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/veronikai.js …` as a user would, with quiet logs and no canary unless env says otherwise. */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliResult> {
  const run = spawnCli(args, env);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  try {
    return await run.exited;
  } finally {
    clearTimeout(timer);
  }
}

export interface SpawnedCli {
  child: ChildProcess;
  /** Everything written so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once the process exited and its output is read. */
  exited: Promise<CliResult>;
  /** Resolves once stdout matches; rejects when the process exits first or after the timeout. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/** Starts `node bin/veronikai.js …` like runCli, without waiting: for long-running roles a test stops itself. */
export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): SpawnedCli {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'veronikai.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, VERONIKAI_CANARY_URLS: '', LOG_LEVEL: 'silent', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitForStdout(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const done = (err?: Error) => {
          clearTimeout(timer);
          child.stdout.off('data', check);
          child.off('close', onClose);
          if (err) reject(err);
          else resolve();
        };
        const check = () => {
          if (pattern.test(stdout)) done();
        };
        const onClose = (code: number | null) =>
          done(new Error(`exited (code ${code}) before printing ${pattern}\nstdout: ${stdout}\nstderr: ${stderr}`));
        const timer = setTimeout(
          () => done(new Error(`nothing matching ${pattern} after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`)),
          timeoutMs,
        );
        child.stdout.on('data', check);
        child.on('close', onClose);
        check();
      });
    },
  };
}
