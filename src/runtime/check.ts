import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../config.js';
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
} from '../conformance/index.js';
import { toHttpExchange } from '../processors/verdicts/observation.js';

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

export function checkFile(path: string, opts: CheckTargetOptions, ctx: CheckContext): CheckRun {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new UsageError(`${path} is not a file`);
    size = st.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (size > MAX_FILE_BYTES) throw new UsageError(`${path} is larger than ${MAX_FILE_BYTES} bytes`);
  if (opts.kind === 'mcp') throw new UsageError('--kind mcp checks a live endpoint: give its http(s) URL');
  const text = readFileSync(path, 'utf8');
  const kind: TargetKind = opts.kind === 'card' ? 'a2a-card' : opts.kind === 'server-json' ? 'mcp-server-json' : detectKind(text, path);
  const verdicts: Verdict[] =
    kind === 'a2a-card'
      ? (({ card, structure }) => [card, structure])(checkA2ACard({ text }, ctx))
      : [checkServerJson({ text }, ctx)];
  return { input: path, kind, scope: 'document', verdicts, text };
}

export async function checkUrl(url: string, opts: CheckTargetOptions, contact: string, ctx: CheckContext): Promise<CheckRun> {
  const probe = await import('../producers/probe/index.js');
  const policy = opts.allowLoopback ? { allowLoopback: true } : {};
  const pathname = (() => {
    try {
      return new URL(url).pathname;
    } catch {
      throw new UsageError(`not a valid URL: ${url}`);
    }
  })();
  const kind = opts.kind ?? (/server\.json$/i.test(pathname) ? 'server-json' : 'card');

  if (kind === 'mcp') {
    const res = await probe.probeMcpEndpoint(url, { contact, ...policy });
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
    const res = await probe.fetchBounded(url, { contact, ...policy, accept: 'application/json', maxBytes: probe.limits.CARD_MAX_BYTES, overCap: 'error' });
    const final = toHttpExchange(res.final);
    if (final.status !== 200 || typeof final.body !== 'string') {
      const why = final.status === null ? `no answer (${final.errorClass ?? 'network error'})` : `HTTP ${final.status}`;
      throw new Error(`could not fetch the server.json: ${why}`);
    }
    const verdict = checkServerJson({ text: final.body }, ctx);
    return { input: url, kind: 'mcp-server-json', scope: 'document', verdicts: [verdict], text: final.body };
  }

  const res = await probe.fetchA2ACardChain(url, { contact, ...policy });
  const obs: A2AObservation = { exchanges: res.exchanges.map(toHttpExchange), robots: 'unknown', canary: 'unknown' };
  const { uptime, card, structure } = judgeA2AObservation(obs, ctx);
  const chain = readChain(obs);
  const text = chain.kind === 'card' ? chain.exchange.body : undefined;
  const run: CheckRun = { input: url, kind: 'a2a-card', scope: 'live', verdicts: [card, structure], uptime };
  if (text !== undefined) run.text = text;
  return run;
}
