/**
 * A GET whose `text/event-stream` answer is kept open and read as it comes (the legacy HTTP+SSE
 * transport answers POSTs on that stream), within a byte cap and one limit on its whole life.
 * The request is the client's (client.ts: the guard, the pinned connection, the caller's secret
 * headers redacted); only the reading of the open body is this file's.
 */
import { EMPTY, sha256 } from './exchange-record.js';
import { requestBounded } from './client.js';
import type { RequestOptions } from './options.js';
import { isEventStream } from '../core/sse.js';
import type { Exchange } from './types.js';

export interface EventStream {
  /** The GET as recorded so far (status, headers; `body` holds the stream text read, up to the cap). */
  exchange: Exchange;
  /** True while the stream is open and under its cap. */
  readonly open: boolean;
  /** Waits up to `ms` for more bytes; resolves with the whole text read so far (never throws). */
  waitFor(predicate: (textSoFar: string) => boolean, ms: number): Promise<string>;
  /** Closes the stream and the connection; the exchange then holds what was read. */
  close(): void;
}

export type EventStreamOptions = Omit<
  RequestOptions,
  'method' | 'body' | 'contentType' | 'followRedirects' | 'keepOpen' | 'openLimitMs' | 'stopWhen' | 'bodyWindowMs'
> & {
  /** Bytes of the stream kept (and of any other answer read). */
  maxBytes: number;
  /** Limit on the connect and the headers. */
  timeoutMs: number;
  /** Limit on the stream's whole life. */
  limitMs: number;
};

/** What the stream's request always asks for; never a caller's value, so never redacted. */
const STREAM_HEADERS: Record<string, string> = {
  accept: 'text/event-stream',
  // Identity: a live stream is read as it comes, without decoders.
  'accept-encoding': 'identity',
};

function closed(ex: Exchange): EventStream {
  return { exchange: ex, open: false, waitFor: async () => ex.body.toString('utf8'), close: () => undefined };
}

/**
 * Opens a GET whose answer is kept open when it is a 200 `text/event-stream`. Any other answer is
 * read whole (bounded) and returned closed. The stream lives until `close()`, `limitMs`, or
 * `maxBytes` read, whichever comes first.
 */
export async function openEventStream(url: string, opts: EventStreamOptions): Promise<EventStream> {
  const { limitMs, ...rest } = opts;
  const res = await requestBounded(url, {
    ...rest,
    method: 'GET',
    headers: { ...opts.headers, ...STREAM_HEADERS },
    secretHeaders: (opts.secretHeaders ?? []).filter((h) => !(h.toLowerCase() in STREAM_HEADERS)),
    followRedirects: false,
    maxRetries: 0,
    keepOpen: (status, headers) => status === 200 && isEventStream(headers),
    openLimitMs: limitMs,
  });
  const ex = res.final;
  const live = res.open;
  if (!live) return closed(ex);

  // The stream is open: collect its bytes as they come, up to the cap.
  const chunks: Buffer[] = [];
  let size = 0;
  let open = true;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...waiters]) w();
  };
  const stop = (truncated: boolean): void => {
    if (!open) return;
    open = false;
    ex.body = size ? Buffer.concat(chunks, size) : EMPTY;
    ex.bodySha256 = sha256(ex.body);
    ex.bodyTruncated = truncated;
    live.close();
    wake();
  };
  live.body.on('data', (chunk: Buffer) => {
    if (!open) return;
    ex.bodyBytes += chunk.length;
    const room = opts.maxBytes - size;
    if (chunk.length > room) {
      if (room > 0) {
        chunks.push(chunk.subarray(0, room));
        size += room;
      }
      stop(true);
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
    wake();
  });
  live.body.on('end', () => stop(false));
  live.body.on('close', () => stop(open));
  live.signal.addEventListener('abort', () => stop(true), { once: true });
  const text = (): string => Buffer.concat(chunks, size).toString('utf8');

  return {
    exchange: ex,
    get open() {
      return open;
    },
    waitFor(predicate, ms) {
      return new Promise<string>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(text());
        };
        const check = (): void => {
          if (!open || predicate(text())) done();
        };
        const timer = setTimeout(done, Math.max(0, ms));
        waiters.add(check);
        check();
      });
    },
    close() {
      stop(false);
    },
  };
}
