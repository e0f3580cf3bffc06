/** The Java runtime the broker runs on. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { MissingToolError, findExecutable, isExecutable } from './tools.js';

const MIN_JAVA = 17;
const INSTALL_HINT = 'Debian: apt-get install openjdk-17-jre-headless';

export interface JavaRuntime {
  path: string;
  major: number;
}

/** JAVA_HOME's java if set, else java on PATH; must be 17 or newer. */
export function findJava(env: NodeJS.ProcessEnv = process.env): JavaRuntime {
  const fromHome = env.JAVA_HOME ? join(env.JAVA_HOME, 'bin', 'java') : null;
  const path = fromHome && isExecutable(fromHome) ? fromHome : findExecutable('java', env);
  if (!path) {
    throw new MissingToolError(
      `java not found: the Kafka broker needs a Java ${MIN_JAVA}+ runtime; install one (${INSTALL_HINT}) or set JAVA_HOME`,
    );
  }
  const out = spawnSync(path, ['-version'], { encoding: 'utf8' });
  const text = `${out.stderr ?? ''}${out.stdout ?? ''}`;
  const m = /version "(\d+)(?:\.(\d+))?/.exec(text);
  let major = m ? Number(m[1]) : NaN;
  if (major === 1 && m?.[2]) major = Number(m[2]); // "1.8.0_…" style
  if (!Number.isFinite(major)) throw new MissingToolError(`could not tell the version of ${path}: ${text.trim().split('\n')[0] ?? ''}`);
  if (major < MIN_JAVA) {
    throw new MissingToolError(`${path} is Java ${major}; the Kafka broker needs Java ${MIN_JAVA}+ (${INSTALL_HINT}, or set JAVA_HOME)`);
  }
  return { path, major };
}
