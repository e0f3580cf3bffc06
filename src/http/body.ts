/**
 * Reading a bounded, decoded body: source → wire counter → decoders (outermost first) → capped
 * sink. The cap is on DECODED bytes; compressed input is cut a little past it (WIRE_SLACK_BYTES)
 * so a decompression bomb is never read whole. The outcome is written into the exchange.
 */
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { classifyError } from './errors.js';
import { EMPTY, sha256 } from './exchange-record.js';
import { raceAbort, type ExchangeLimit } from './exchange-limit.js';
import { WIRE_SLACK_BYTES } from './limits.js';
import type { RequestOptions, ResolvedOptions } from './options.js';
import type { Exchange } from './types.js';

/** What the body read takes of a request's options. */
type ReadOptions = Pick<RequestOptions, 'stopWhen' | 'bodyWindowMs'>;

class StopReading extends Error {
  override name = 'StopReading';
}

type Stop = 'cap' | 'wire' | 'window' | 'stopWhen';

function makeDecoder(encoding: string, firstBytes: Buffer | null): Transform | null {
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(flush);
    case 'deflate': {
      // "deflate" should be zlib-wrapped (RFC 9110); some servers send raw deflate. Sniff when we can.
      const b = firstBytes;
      const zlibWrapped = !b || b.length < 2 || ((b[0]! & 0x0f) === 8 && ((b[0]! << 8) | b[1]!) % 31 === 0);
      return zlibWrapped ? zlib.createInflate(flush) : zlib.createInflateRaw(flush);
    }
    case 'br':
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      return null;
  }
}

/** The content codings applied, outermost last; 'identity' and blanks left out. */
function contentEncodings(headers: Record<string, string>): string[] {
  return (headers['content-encoding'] ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity');
}

/**
 * The body as a source of chunks. For an outermost `deflate`, the first two bytes are read
 * ahead (within the exchange limit) so the decoder can tell zlib-wrapped from raw deflate.
 */
async function sourceWithHead(
  body: Readable,
  sniff: boolean,
  signal: AbortSignal,
): Promise<{ source: () => AsyncGenerator<Buffer>; head: Buffer | null }> {
  const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let sourceDone = false;
  if (sniff) {
    let n = 0;
    while (n < 2) {
      const r = await raceAbort(it.next(), signal);
      if (r.done) {
        sourceDone = true;
        break;
      }
      head.push(r.value);
      n += r.value.length;
    }
  }
  async function* source(): AsyncGenerator<Buffer> {
    try {
      for (const c of head) yield c;
      if (sourceDone) return;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await it.return?.();
    }
  }
  return { source, head: head.length ? Buffer.concat(head) : null };
}

/**
 * Reads `body` into `ex` (body, bodyBytes, bodySha256, bodyTruncated, and the error class of a
 * cap, window, timeout or read failure). Throws only what the exchange as a whole must classify
 * (the exchange limit reached while sniffing the first bytes).
 */
export async function readBody(body: Readable, ex: Exchange, opts: ReadOptions, ro: ResolvedOptions, limit: ExchangeLimit): Promise<void> {
  const encodings = contentEncodings(ex.headers);
  const unsupported = encodings.find((e) => !['gzip', 'x-gzip', 'deflate', 'br'].includes(e));

  // Announced too large and not compressed: stop now instead of reading what we would discard.
  const declared = Number(ex.headers['content-length']);
  if (ro.overCap === 'error' && encodings.length === 0 && Number.isFinite(declared) && declared > ro.maxBytes) {
    ex.bodyTruncated = true;
    ex.errorClass = 'body_too_large';
    ex.errorMessage = `content-length ${declared} exceeds the ${ro.maxBytes}-byte cap`;
    body.destroy();
    return;
  }

  // Most bodies are not encoded: read them straight from the response, without a stream pipeline
  // (its streams, abort signals and errors cost more CPU than the read itself). Same bounds, same outcome.
  if (unsupported || encodings.length === 0) {
    await readPlain(body, ex, opts, ro, limit);
    if (unsupported && ex.errorClass === null) {
      ex.errorClass = 'protocol';
      ex.errorMessage = `unsupported content-encoding "${unsupported}"; body kept as received`;
    }
    return;
  }

  const { source, head } = await sourceWithHead(body, !unsupported && encodings[encodings.length - 1] === 'deflate', limit.signal);

  let stop: Stop | null = null;
  let wire = 0;
  const decoders: Transform[] = [];
  if (!unsupported) {
    for (let i = encodings.length - 1; i >= 0; i--) {
      decoders.push(makeDecoder(encodings[i]!, i === encodings.length - 1 ? head : null)!);
    }
  }
  const wireLimit = decoders.length ? ro.maxBytes + WIRE_SLACK_BYTES : Number.POSITIVE_INFINITY;
  const wireCounter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      wire += chunk.length;
      if (wire > wireLimit) {
        stop ??= 'wire';
        cb(new StopReading('compressed input exceeds the cap'));
        return;
      }
      cb(null, chunk);
    },
  });
  const kept = new KeptBody(ex, ro.maxBytes, opts.stopWhen);
  const sink = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, cb) {
      const why = kept.take(chunk);
      if (why) {
        stop ??= why;
        cb(new StopReading(why === 'cap' ? 'cap reached' : 'enough read'));
        return;
      }
      cb();
    },
  });

  const windowAc = new AbortController();
  let windowTimer: NodeJS.Timeout | undefined;
  if (opts.bodyWindowMs !== undefined && opts.bodyWindowMs >= 0) {
    windowTimer = setTimeout(() => {
      stop ??= 'window';
      windowAc.abort(new StopReading('read window over'));
    }, opts.bodyWindowMs);
  }
  let readError: unknown = null;
  try {
    await pipeline(Readable.from(source(), { objectMode: false }), wireCounter, ...decoders, sink, {
      signal: AbortSignal.any([limit.signal, windowAc.signal]),
    });
  } catch (e) {
    readError = e;
  } finally {
    clearTimeout(windowTimer);
  }
  ex.body = kept.bytes();
  ex.bodySha256 = sha256(ex.body);
  recordReadOutcome(ex, stop, readError, limit, ro, wireLimit);
  if (unsupported && ex.errorClass === null) {
    ex.errorClass = 'protocol';
    ex.errorMessage = `unsupported content-encoding "${unsupported}"; body kept as received`;
  }
}

/**
 * An unencoded body: chunks kept up to the cap, `stopWhen` asked after each, the read window and
 * the exchange limit as in the pipeline above; the outcome recorded by the same rules.
 */
async function readPlain(body: Readable, ex: Exchange, opts: ReadOptions, ro: ResolvedOptions, limit: ExchangeLimit): Promise<void> {
  const kept = new KeptBody(ex, ro.maxBytes, opts.stopWhen);
  let stop: Stop | null = null;
  const readError = await new Promise<unknown>((resolve) => {
    let settled = false;
    let windowTimer: NodeJS.Timeout | undefined;
    const settle = (err: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(windowTimer);
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      limit.signal.removeEventListener('abort', onAbort);
      // Stopped early: the caller destroys the body (and its connection).
      if (!body.readableEnded) body.pause();
      resolve(err);
    };
    const onData = (chunk: Buffer): void => {
      if (settled) return;
      const why = kept.take(chunk);
      if (why) {
        stop ??= why;
        settle(null);
      }
    };
    const onEnd = (): void => settle(null);
    const onError = (err: unknown): void => settle(err);
    const onClose = (): void => {
      if (body.readableEnded) return settle(null);
      const err: NodeJS.ErrnoException = new Error('Premature close');
      err.code = 'ERR_STREAM_PREMATURE_CLOSE';
      settle(err);
    };
    const onAbort = (): void => settle(limit.signal.reason);
    if (limit.signal.aborted) return settle(limit.signal.reason);
    if (body.readableEnded) return settle(null);
    limit.signal.addEventListener('abort', onAbort, { once: true });
    if (opts.bodyWindowMs !== undefined && opts.bodyWindowMs >= 0) {
      windowTimer = setTimeout(() => {
        stop ??= 'window';
        settle(null);
      }, opts.bodyWindowMs);
    }
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
  ex.body = kept.bytes();
  ex.bodySha256 = sha256(ex.body);
  recordReadOutcome(ex, stop, readError, limit, ro, Number.POSITIVE_INFINITY);
}

/** Why the read ended, as the exchange records it. */
function recordReadOutcome(
  ex: Exchange,
  stop: Stop | null,
  readError: unknown,
  limit: ExchangeLimit,
  ro: ResolvedOptions,
  wireLimit: number,
): void {
  if (stop !== null && !(limit.timedOut && stop === 'window')) {
    ex.bodyTruncated = true;
    if (stop === 'cap' && ro.overCap === 'error') {
      ex.errorClass = 'body_too_large';
      ex.errorMessage = `body exceeds the ${ro.maxBytes}-byte cap (decoded)`;
    } else if (stop === 'wire' && ro.overCap === 'error') {
      ex.errorClass = 'body_too_large';
      ex.errorMessage = `compressed body exceeds ${wireLimit} bytes before reaching the ${ro.maxBytes}-byte decoded cap`;
    }
  } else if (limit.timedOut) {
    ex.bodyTruncated = true;
    ex.errorClass = 'timeout';
    ex.errorMessage = `exchange limit of ${ro.timeoutMs} ms reached while reading the body`;
  } else if (readError !== null) {
    ex.bodyTruncated = true;
    const c = classifyError(readError);
    ex.errorClass = c.errorClass;
    ex.errorMessage = c.message;
  }
}

/** The body as kept: its chunks up to the cap, counted on the exchange; says when reading should stop. */
class KeptBody {
  private readonly parts: Buffer[] = [];
  private length = 0;
  constructor(
    private readonly ex: Exchange,
    private readonly max: number,
    private readonly stopWhen: ReadOptions['stopWhen'],
  ) {}

  /** Keeps what fits of `chunk`; 'cap' when the cap is reached, 'stopWhen' when the caller has enough, else null. */
  take(chunk: Buffer): 'cap' | 'stopWhen' | null {
    this.ex.bodyBytes += chunk.length;
    const room = this.max - this.length;
    if (chunk.length > room) {
      if (room > 0) {
        this.parts.push(chunk.subarray(0, room));
        this.length += room;
      }
      return 'cap';
    }
    this.parts.push(chunk);
    this.length += chunk.length;
    return this.stopWhen?.(Buffer.concat(this.parts, this.length), this.ex.headers) ? 'stopWhen' : null;
  }

  bytes(): Buffer {
    return this.length ? Buffer.concat(this.parts, this.length) : EMPTY;
  }
}
