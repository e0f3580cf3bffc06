/**
 * Small hostile servers on loopback for the bounded client's tests: slow, huge, compressed
 * bombs, endless streams, redirect games, resets, bad TLS. Each writes with backpressure from
 * a reused buffer, so "huge" never means "allocated", and `close()` destroys every socket.
 */
import { generateKeyPairSync, sign, X509Certificate } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import zlib from 'node:zlib';

export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  port: number;
  /** Connections accepted so far. */
  connections: () => number;
  /** Request paths seen so far (HTTP servers only). */
  paths: string[];
  close: () => Promise<void>;
}

function track(server: net.Server, scheme: 'http' | 'https', host: string): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  server.on('connection', (s: net.Socket) => {
    count++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  const paths: string[] = [];
  server.on('request', (req: http.IncomingMessage) => paths.push(req.url ?? ''));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const port = (server.address() as net.AddressInfo).port;
      const hostPart = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `${scheme}://${hostPart}:${port}`,
        port,
        connections: () => count,
        paths,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

export function startHttpServer(handler: http.RequestListener, host = '127.0.0.1'): Promise<TestServer> {
  return track(http.createServer(handler), 'http', host);
}

/** A request a recording receiver got: its headers and its body as text. */
export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: answers every request 204 and records it in `received`, in arrival order. */
export async function startRecordingReceiver(received: ReceivedRequest[]): Promise<TestServer> {
  return startHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204);
      res.end();
    });
  });
}

/** A raw TCP server: the handler owns the socket (for responses node:http cannot produce). */
export function startRawServer(onSocket: (socket: net.Socket) => void, host = '127.0.0.1'): Promise<TestServer> {
  const server = net.createServer((s) => {
    s.on('error', () => undefined);
    onSocket(s);
  });
  return track(server, 'http', host);
}

/** Writes `chunk` repeatedly (with backpressure) until `total` bytes or the socket closes. */
function stream(res: http.ServerResponse, chunk: Buffer, total: number, end = true): void {
  let sent = 0;
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (end && !res.destroyed) res.end();
  };
  res.on('error', () => undefined);
  pump();
}

/** Writes `piece` every `everyMs` until the socket closes. */
function trickle(write: (b: Buffer) => void, closed: () => boolean, piece: Buffer, everyMs: number): void {
  const t = setInterval(() => {
    if (closed()) {
      clearInterval(t);
      return;
    }
    write(piece);
  }, everyMs);
  t.unref();
}

const ZEROS_64K = Buffer.alloc(64 * 1024, 0x61);
const GIB = 1024 * 1024 * 1024;
/** 13107 empty non-final stored deflate blocks (00 0000 ffff): 65535 bytes that decode to nothing. */
const EMPTY_STORED_BLOCKS = Buffer.concat(Array.from({ length: 13107 }, () => Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff])));

let bombs: { gzip: Buffer; br: Buffer; deflateRaw: Buffer } | null = null;
/** 16 MiB of zeros, compressed (each well under 100 KB); repeated members make gigabytes. */
function bombMembers(): { gzip: Buffer; br: Buffer; deflateRaw: Buffer } {
  if (!bombs) {
    const zeros = Buffer.alloc(16 * 1024 * 1024);
    // Level 1: fast to build, still about 1000:1 on zeros.
    bombs = {
      gzip: zlib.gzipSync(zeros, { level: 1 }),
      br: zlib.brotliCompressSync(zeros, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }),
      deflateRaw: zlib.deflateRawSync(zeros, { level: 1 }),
    };
  }
  return bombs;
}

/** One HTTP server with a route per hostile behaviour. */
export function startHostileServer(): Promise<TestServer> {
  return startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    res.on('error', () => undefined);
    switch (p) {
      case '/ok':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, ua: req.headers['user-agent'], accept: req.headers.accept }));
        return;
      case '/slow-body': // slowloris body: headers at once, then one byte every 50 ms forever
        res.writeHead(200, { 'content-type': 'text/plain' });
        trickle(
          (b) => res.write(b),
          () => res.destroyed,
          Buffer.from('x'),
          50,
        );
        return;
      case '/sse-endless': // an SSE stream that never ends and never stops talking
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        trickle(
          (b) => res.write(b),
          () => res.destroyed,
          Buffer.from('event: tick\ndata: 0123456789abcdef\n\n'),
          5,
        );
        return;
      case '/sse-one-long-line': // SSE that streams one event that never completes
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: ');
        trickle(
          (b) => res.write(b),
          () => res.destroyed,
          Buffer.alloc(256, 0x7a),
          2,
        );
        return;
      case '/sse-silent': // headers, then nothing (like an idle standalone SSE stream)
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        return;
      case '/huge-length': // announces 4 GiB and streams until the client leaves
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(4 * GIB) });
        stream(res, ZEROS_64K, 4 * GIB);
        return;
      case '/huge-chunked': // 4 GiB, chunked, no length announced
        res.writeHead(200, { 'content-type': 'application/json' });
        stream(res, ZEROS_64K, 4 * GIB);
        return;
      case '/gzip-bomb': // 1 GiB of zeros as 64 gzip members of 16 MiB each
      case '/br-bomb':
      case '/deflate-bomb': {
        const b = bombMembers();
        const enc = p === '/gzip-bomb' ? 'gzip' : p === '/br-bomb' ? 'br' : 'deflate';
        const member = p === '/gzip-bomb' ? b.gzip : p === '/br-bomb' ? b.br : b.deflateRaw;
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': enc });
        // gzip members concatenate; br and raw deflate are one stream each (16 MiB decoded).
        stream(res, member, p === '/gzip-bomb' ? member.length * 64 : member.length);
        return;
      }
      case '/gzip-empty-blocks': {
        // A valid gzip header followed by empty stored blocks forever: bytes that decode to nothing.
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.write(Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]));
        stream(res, EMPTY_STORED_BLOCKS, 4 * GIB);
        return;
      }
      case '/gzip-small': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(zlib.gzipSync(Buffer.from('{"small":true}')));
        return;
      }
      case '/deflate-zlib': {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' });
        res.end(zlib.deflateSync(Buffer.from('zlib-wrapped deflate')));
        return;
      }
      case '/deflate-raw': {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' });
        res.end(zlib.deflateRawSync(Buffer.from('raw deflate')));
        return;
      }
      case '/br-small': {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' });
        res.end(zlib.brotliCompressSync(Buffer.from('brotli body')));
        return;
      }
      case '/corrupt-gzip':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(Buffer.from('this is not gzip at all, not even close'));
        return;
      case '/zstd':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'zstd' });
        res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0]));
        return;
      case '/loop/a':
        res.writeHead(302, { location: '/loop/b' });
        res.end();
        return;
      case '/loop/b':
        res.writeHead(301, { location: '/loop/a' });
        res.end();
        return;
      case '/self':
        res.writeHead(307, { location: '/self#again' });
        res.end();
        return;
      case '/redirect': {
        // /redirect?to=<absolute or relative URL>&status=302
        const to = url.searchParams.get('to') ?? '/ok';
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to });
        res.end('moved');
        return;
      }
      case '/redirect-no-location':
        res.writeHead(302, { 'content-type': 'text/plain' });
        res.end('nowhere');
        return;
      case '/redirect-bad-location':
        res.writeHead(302, { location: 'http://exa mple.com:99999/' });
        res.end();
        return;
      case '/invalid-utf8':
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]));
        return;
      case '/rate-limited':
        res.writeHead(429, { 'retry-after': '120', 'content-type': 'text/plain' });
        res.end('slow down');
        return;
      case '/reset-mid-body': // promises 100000 bytes, sends 1000, then a TCP RST
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
        res.write(Buffer.alloc(1000, 0x20), () => {
          setTimeout(() => res.socket?.resetAndDestroy(), 20);
        });
        return;
      case '/close-mid-body': // promises 100000 bytes, sends 1000, then a clean FIN
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
        res.write(Buffer.alloc(1000, 0x20), () => {
          setTimeout(() => res.socket?.end(), 20);
        });
        return;
      case '/huge-headers':
        res.writeHead(200, { 'x-padding': 'p'.repeat(40 * 1024), 'content-type': 'text/plain' });
        res.end('unreachable');
        return;
      case '/many-headers': {
        const h: Record<string, string> = { 'content-type': 'text/plain', 'set-cookie': 'sid=secret' };
        for (let i = 0; i < 40; i++) h[`x-h${i}`] = 'v'.repeat(200);
        res.writeHead(200, h);
        res.end('ok');
        return;
      }
      case '/exact': {
        const n = Number(url.searchParams.get('n') ?? 0);
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(n) });
        res.end(Buffer.alloc(n, 0x62));
        return;
      }
      case '/echo-headers':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, headers: req.headers }));
        return;
      case '/mcp-401': // 401 without resource_metadata, and no metadata published anywhere
        res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"', 'content-type': 'application/json' });
        res.end('{"error":"unauthorized"}');
        return;
      case '/mcp-405':
        res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}');
        return;
      default:
        if (p.startsWith('/chain/')) {
          // /chain/0 → /chain/1 → … forever
          const n = Number(p.slice('/chain/'.length)) || 0;
          res.writeHead(302, { location: `/chain/${n + 1}` });
          res.end();
          return;
        }
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body>not found</body></html>');
    }
  });
}

/** Slowloris on the header block: a status line, then one header byte every 50 ms forever. */
export function startSlowHeadersServer(): Promise<TestServer> {
  return startRawServer((s) => {
    s.once('data', () => {
      s.write('HTTP/1.1 200 OK\r\n');
      trickle(
        (b) => s.write(b),
        () => s.destroyed,
        Buffer.from('X'),
        50,
      );
    });
  });
}

/** Accepts the connection and never answers. */
export function startSilentServer(): Promise<TestServer> {
  return startRawServer(() => undefined);
}

/** Answers every request with bytes that are not HTTP. */
export function startGarbageServer(): Promise<TestServer> {
  return startRawServer((s) => {
    s.once('data', () => s.end('SSH-2.0-OpenSSH_9.6 definitely not http\r\n\r\n'));
  });
}

/** Accepts, reads the request, and closes without a byte of response. */
export function startHangUpServer(): Promise<TestServer> {
  return startRawServer((s) => {
    s.once('data', () => s.destroy());
  });
}

/** Accepts, reads the request, and sends a TCP RST without a response. */
export function startResetServer(): Promise<TestServer> {
  return startRawServer((s) => {
    s.once('data', () => s.resetAndDestroy());
  });
}

// --- A self-signed certificate, built with node:crypto only (no openssl on the path needed) ---

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}
function derOid(oid: string): Buffer {
  const parts = oid.split('.').map(Number);
  const out: number[] = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const stack: number[] = [p & 0x7f];
    for (let v = p >> 7; v > 0; v >>= 7) stack.unshift((v & 0x7f) | 0x80);
    out.push(...stack);
  }
  return der(0x06, Buffer.from(out));
}
function derUtcTime(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  return der(0x17, Buffer.from(s, 'ascii'));
}

/** A fresh self-signed ECDSA P-256 certificate for `commonName` (PEM cert and key). */
export function selfSignedCertificate(commonName = 'localhost'): { cert: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const sigAlg = der(0x30, derOid('1.2.840.10045.4.3.2'));
  const name = der(0x30, der(0x31, der(0x30, derOid('2.5.4.3'), der(0x0c, Buffer.from(commonName, 'utf8')))));
  const now = Date.now();
  const tbs = der(
    0x30,
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.from([0x01, 0x23, 0x45, 0x67])),
    sigAlg,
    name,
    der(0x30, derUtcTime(new Date(now - 3600_000)), derUtcTime(new Date(now + 24 * 3600_000))),
    name,
    spki,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certDer = der(0x30, tbs, sigAlg, der(0x03, Buffer.from([0]), signature));
  const b64 = certDer.toString('base64').replace(/(.{64})/g, '$1\n');
  const cert = `-----BEGIN CERTIFICATE-----\n${b64.trim()}\n-----END CERTIFICATE-----\n`;
  new X509Certificate(cert); // throws if malformed
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** An HTTPS server with a self-signed certificate: a verifying client must refuse it. */
export function startSelfSignedTlsServer(): Promise<TestServer> {
  const { cert, key } = selfSignedCertificate('localhost');
  const server = tls.createServer({ cert, key }, (s) => {
    s.on('error', () => undefined);
    s.once('data', () => s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok'));
  });
  server.on('tlsClientError', () => undefined);
  return track(server, 'https', '127.0.0.1');
}

/** A plain TCP server behind an https:// URL: the TLS handshake cannot succeed. */
export async function startPlainTextOnTlsPortServer(): Promise<TestServer> {
  const s = await startRawServer((sock) => {
    sock.once('data', () => sock.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  });
  return { ...s, url: s.url.replace(/^http:/, 'https:') };
}
