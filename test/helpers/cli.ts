import { spawn } from 'node:child_process';
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
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'veronikai.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, VERONIKAI_CANARY_URLS: '', LOG_LEVEL: 'silent', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
