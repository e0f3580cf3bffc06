/**
 * The broker's jars: the Kafka version pinned in stack/kafka/pom.xml, resolved from Maven
 * Central by Maven into <cacheDir>/kafka-<version>/libs.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger, type Logger } from '../../log.js';
import { MissingToolError, findExecutable, outputTail, run } from './tools.js';

/** Finds stack/kafka/pom.xml by walking up from this module (works from src/ and from dist/). */
export function findKafkaPom(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'stack', 'kafka', 'pom.xml');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('stack/kafka/pom.xml not found above ' + dirname(fileURLToPath(import.meta.url)));
    dir = parent;
  }
}

/** The Kafka version pinned in the pom (`<kafka.version>`). */
export function kafkaVersion(pomPath = findKafkaPom()): string {
  const m = /<kafka\.version>\s*([^<\s]+)\s*<\/kafka\.version>/.exec(readFileSync(pomPath, 'utf8'));
  if (!m?.[1]) throw new Error(`no <kafka.version> in ${pomPath}`);
  return m[1];
}

export interface KafkaJars {
  version: string;
  libsDir: string;
  /** For `java -cp`. */
  classpath: string;
}

export interface EnsureJarsOptions {
  cacheDir: string;
  logger?: Logger;
  pomPath?: string;
  /** Where to look for mvn (PATH); default process.env. */
  env?: NodeJS.ProcessEnv;
}

const MARKER = '.veronikai-resolved';

/** The libs directory for a version, whether or not it is resolved yet. */
export function kafkaLibsDir(cacheDir: string, version: string): string {
  return join(resolve(cacheDir), `kafka-${version}`, 'libs');
}

function libsComplete(libsDir: string, version: string): boolean {
  if (!existsSync(libsDir)) return false;
  const files = readdirSync(libsDir);
  // Resolved by us (marker) or pre-resolved by the same mvn command, e.g. in CI.
  return (
    files.includes(`kafka_2.13-${version}.jar`) &&
    files.some((f) => f.startsWith('log4j-core-')) &&
    files.some((f) => f.startsWith('log4j-slf4j2-impl-'))
  );
}

/**
 * Makes sure the broker's jars are in the cache, resolving them with Maven when they are not:
 * `mvn -q -B -f stack/kafka/pom.xml dependency:copy-dependencies -DoutputDirectory=<libs>`.
 */
export async function ensureKafkaJars(opts: EnsureJarsOptions): Promise<KafkaJars> {
  const logger = opts.logger ?? silentLogger;
  const pomPath = opts.pomPath ?? findKafkaPom();
  const version = kafkaVersion(pomPath);
  const libsDir = kafkaLibsDir(opts.cacheDir, version);
  const jars = { version, libsDir, classpath: join(libsDir, '*') };
  if (libsComplete(libsDir, version)) return jars;

  const mvn = findExecutable('mvn', opts.env);
  if (!mvn) {
    throw new MissingToolError(
      `mvn not found: Kafka ${version}'s jars are resolved from Maven Central with Maven; install Maven (Debian: apt-get install maven) or put the jars in ${libsDir}`,
    );
  }
  const tmp = `${libsDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(dirname(libsDir), { recursive: true });
  logger.info({ version, libsDir }, 'resolving the Kafka broker jars with Maven');
  const started = Date.now();
  await resolveJars(mvn, pomPath, version, libsDir, tmp);
  logger.info({ version, libsDir, ms: Date.now() - started }, 'Kafka broker jars resolved');
  return jars;
}

/** Resolves into `tmp` (an empty path beside libsDir), then moves it into place. */
async function resolveJars(mvn: string, pomPath: string, version: string, libsDir: string, tmp: string): Promise<void> {
  const res = await run(mvn, [
    '-q',
    '-B',
    '-f',
    pomPath,
    'dependency:copy-dependencies',
    `-DoutputDirectory=${tmp}`,
    '-DincludeScope=runtime',
  ]);
  if (res.code !== 0 || !libsComplete(tmp, version)) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`Maven could not resolve the Kafka ${version} jars (exit ${res.code}):\n${outputTail(res, 15)}`);
  }
  writeFileSync(join(tmp, MARKER), createHash('sha256').update(readFileSync(pomPath)).digest('hex') + '\n');
  // Another process resolved the same jars meanwhile and may be running a broker from them: keep theirs.
  if (libsComplete(libsDir, version)) {
    rmSync(tmp, { recursive: true, force: true });
    return;
  }
  rmSync(libsDir, { recursive: true, force: true });
  try {
    renameSync(tmp, libsDir);
  } catch (err) {
    // Another process resolved the same jars at the same time: keep theirs.
    rmSync(tmp, { recursive: true, force: true });
    if (!libsComplete(libsDir, version)) throw err;
  }
}
