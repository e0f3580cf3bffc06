import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';
import { startFixture, type FixtureBase } from './fixture-common.js';

/**
 * Listing bodies as the services send them, read in place from the shared corpus
 * (../shared/corpus/sources, with a README of where each came from); never copied into the
 * project. A test skips, saying why, when the corpus or one of its files is not on the machine.
 */
export const SOURCES_CORPUS = join(ROOT, '..', 'shared', 'corpus', 'sources');

/** Why a corpus file cannot be read here, or null when it can. */
export function corpusAbsent(rel: string): string | null {
  if (!existsSync(SOURCES_CORPUS)) return `the shared corpus of listing bodies is not on this machine (${SOURCES_CORPUS}); ${rel} skipped`;
  if (!existsSync(join(SOURCES_CORPUS, rel))) return `${rel} is not in the shared corpus (${SOURCES_CORPUS}); skipped`;
  return null;
}

/** The bytes of a corpus file, exactly as stored. */
export function corpusBytes(rel: string): Buffer {
  return readFileSync(join(SOURCES_CORPUS, rel));
}

export function corpusJson<T = unknown>(rel: string): T {
  return JSON.parse(corpusBytes(rel).toString('utf8')) as T;
}

/** One answer of a corpus fixture: bytes are sent as they are, anything else as JSON. */
export interface CorpusAnswer {
  status?: number;
  body: Buffer | unknown;
  headers?: Record<string, string>;
}

export interface CorpusFixture extends FixtureBase {
  /** The answer to a data request (path and query in `url`); null answers 404. */
  answer: (url: URL) => CorpusAnswer | null;
}

/**
 * A loopback listing server that answers each data request as `answer` says (typically a
 * corpus file's bytes for the first page and nothing else): GET only, robots.txt 404 (none),
 * request log, as every listing fixture (fixture-common.ts).
 */
export function startCorpusFixture(answer: (url: URL) => CorpusAnswer | null): Promise<CorpusFixture> {
  return startFixture<Pick<CorpusFixture, 'answer'>>({ answer }, (url, _req, res, self) => {
    const a = self.answer(url) ?? { status: 404, body: { error: 'Not Found' } };
    const bytes = Buffer.isBuffer(a.body) ? a.body : Buffer.from(JSON.stringify(a.body));
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json', 'content-length': String(bytes.length), ...a.headers });
    res.end(bytes);
  });
}
