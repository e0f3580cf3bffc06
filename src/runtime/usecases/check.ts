import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { UsageError } from '../../config.js';
import {
  checkA2ACard,
  checkServerJson,
  detectKind,
  judgeA2AObservation,
  judgeMcpEndpoint,
  readChain,
  type A2AObservation,
  type CheckRun,
  type McpObservation,
  type TargetKind,
  type Verdict,
} from '../../conformance/index.js';
import type { FetchOptions } from '../../http/options.js';
import type * as ProbeModule from '../../producers/probe/index.js';
import { toHttpExchange } from '../../processors/verdicts/observation.js';
import { textOrNull } from '../../util/text.js';

/**
 * What `check` does with its target: read a local file within a cap, or fetch a URL with
 * the crawler's bounded GET-only chain, and judge it with the same engine as the index.
 */

/** Local files above this are refused (a card is read up to 512 KB by the crawler). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface CheckTargetOptions {
  kind?: 'card' | 'server-json' | 'mcp';
  transport?: 'streamable-http' | 'sse';
  allowLoopback?: boolean;
}

export interface CheckContext {
  subject: string;
  observedAt: string;
}

/** Reads ask for whole blocks: some /proc files (pagemap) refuse a read of any other length. */
const READ_BLOCK = 64 * 1024;

function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Reads a local file to at most `max` bytes. It is opened once and judged by `fstat` on that
 * descriptor, so a file swapped after a check is never the one read; opened non-blocking, so a
 * FIFO or a device is refused rather than waited on; and read only until it proves larger than
 * `max` (at most one block past it) whatever its size claims (a /proc file says 0), so an
 * endless file is refused, never held.
 */
export function readLocalFile(path: string, max = MAX_FILE_BYTES): Buffer {
  const tooLarge = () => new UsageError(`${path} is larger than ${max} bytes`);
  const cannot = (err: unknown) => new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    throw cannot(err);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UsageError(`${path} is not a regular file (${fileKind(st)})`);
    if (st.size > max) throw tooLarge();
    const limit = max + READ_BLOCK;
    let buf = Buffer.allocUnsafe(Math.min(limit, st.size + READ_BLOCK));
    let total = 0;
    for (;;) {
      if (total > max) throw tooLarge();
      if (buf.length - total < READ_BLOCK) {
        const bigger = Buffer.allocUnsafe(Math.min(limit, Math.max(buf.length * 2, total + READ_BLOCK)));
        buf.copy(bigger, 0, 0, total);
        buf = bigger;
      }
      let n: number;
      try {
        n = readSync(fd, buf, total, READ_BLOCK, null);
      } catch (err) {
        throw cannot(err);
      }
      if (n === 0) break;
      total += n;
    }
    return buf.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}

/**
 * Judges a document's bytes as `check` does: decoded strictly, so text that is not valid UTF-8 is
 * judged as such (the document fails its "valid JSON" rule, RFC 8259 §8.1), never silently read
 * with replacement characters. Pure: the fuzz tests drive `check`'s path through it.
 */
export function checkDocumentBytes(bytes: Uint8Array, input: string, opts: Pick<CheckTargetOptions, 'kind'>, ctx: CheckContext): CheckRun {
  const { text, validUtf8 } = textOrNull(bytes);
  const doc = { text: text ?? '', validUtf8 };
  const kind: TargetKind =
    opts.kind === 'card' ? 'a2a-card' : opts.kind === 'server-json' ? 'mcp-server-json' : detectKind(doc.text, input);
  const verdicts: Verdict[] =
    kind === 'a2a-card' ? (({ card, structure }) => [card, structure])(checkA2ACard(doc, ctx)) : [checkServerJson(doc, ctx)];
  return { input, kind, scope: 'document', verdicts, text: doc.text };
}

/** Checks a local card or server.json file. */
export function checkFile(path: string, opts: CheckTargetOptions, ctx: CheckContext): CheckRun {
  if (opts.kind === 'mcp') throw new UsageError('--kind mcp checks a live endpoint: give its http(s) URL');
  return checkDocumentBytes(readLocalFile(path), path, opts, ctx);
}

export async function checkUrl(url: string, opts: CheckTargetOptions, contact: string, ctx: CheckContext): Promise<CheckRun> {
  const probe = await import('../../producers/probe/index.js');
  const pathname = (() => {
    try {
      return new URL(url).pathname;
    } catch {
      throw new UsageError(`not a valid URL: ${url}`);
    }
  })();
  const kind = opts.kind ?? (/server\.json$/i.test(pathname) ? 'server-json' : 'card');
  // The check's requests share kept-alive connections (the card chain asks one origin up to three times).
  const connections = new probe.PinnedConnections();
  const fetchOpts: FetchOptions = { contact, ...(opts.allowLoopback ? { allowLoopback: true } : {}), connections };
  try {
    return await checkLive(probe, url, kind, opts, fetchOpts, ctx);
  } finally {
    connections.closeIdle();
  }
}

async function checkLive(
  probe: typeof ProbeModule,
  url: string,
  kind: NonNullable<CheckTargetOptions['kind']>,
  opts: CheckTargetOptions,
  fetchOpts: FetchOptions,
  ctx: CheckContext,
): Promise<CheckRun> {
  if (kind === 'mcp') {
    const res = await probe.probeMcpEndpoint(url, fetchOpts);
    const obs: McpObservation = {
      remote: { type: opts.transport ?? 'streamable-http', url },
      get: toHttpExchange(res.final),
      metadata: res.metadata ? toHttpExchange(res.metadata) : null,
      robots: 'unknown',
      canary: 'unknown',
      serverJson: null,
    };
    const { uptime, verdict } = judgeMcpEndpoint(obs, ctx);
    return { input: url, kind: 'mcp-endpoint', scope: 'live', verdicts: [verdict], uptime };
  }

  if (kind === 'server-json') {
    const res = await probe.fetchBounded(url, {
      ...fetchOpts,
      accept: 'application/json',
      maxBytes: probe.limits.CARD_MAX_BYTES,
      overCap: 'error',
    });
    const final = toHttpExchange(res.final);
    if (final.status !== 200 || typeof final.body !== 'string') {
      const why = final.status === null ? `no answer (${final.errorClass ?? 'network error'})` : `HTTP ${final.status}`;
      throw new Error(`could not fetch the server.json: ${why}`);
    }
    const verdict = checkServerJson({ text: final.body, validUtf8: textOrNull(res.final).validUtf8 }, ctx);
    return { input: url, kind: 'mcp-server-json', scope: 'document', verdicts: [verdict], text: final.body };
  }

  const res = await probe.fetchA2ACardChain(url, fetchOpts);
  // The crawler's decoding, plus whether each body was valid UTF-8, so the card is judged on it.
  const exchanges = res.exchanges.map((e) => {
    const x = toHttpExchange(e);
    if (x.body !== undefined && !textOrNull(e).validUtf8) x.bodyValidUtf8 = false;
    return x;
  });
  const obs: A2AObservation = { exchanges, robots: 'unknown', canary: 'unknown' };
  const { uptime, card, structure } = judgeA2AObservation(obs, ctx);
  const chain = readChain(obs);
  const text = chain.kind === 'card' ? chain.exchange.body : undefined;
  const run: CheckRun = { input: url, kind: 'a2a-card', scope: 'live', verdicts: [card, structure], uptime };
  if (text !== undefined) run.text = text;
  return run;
}
