/**
 * Real peers for `veronikai inspect`:
 * - the modern-era MCP server of the official Python SDK (`mcp` 2.3.0 in the checkout's .venv,
 *   test/peers/modern_mcp_server.py), started on a free loopback port;
 * - MCP servers of the TypeScript SDK behind bearer auth, with RFC 9728 metadata, and small
 *   authorization servers of our own for each metadata layout (CIMD; DCR only; OIDC only;
 *   RFC 8414 only; a dead issuer);
 * - A2A agents serving crafted cards (each card defect of the lint), and OpenID configurations.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Express } from 'express';
import type { InspectSettings } from '../../src/inspect/index.js';
import { ROOT } from './cli.js';
import type { Peer } from './peers.js';

/** Settings of an inspect in the tests: loopback allowed, the default budget, a generous time limit. */
export const INSPECT_TEST_SETTINGS: InspectSettings = {
  userAgent: 'VeronikAI-inspect/test',
  ownerHeaders: {},
  requestBudget: 40,
  timeLimitMs: 30_000,
  requestTimeoutMs: 10_000,
  allowLoopback: true,
};

export const VENV_PYTHON = join(ROOT, '.venv', 'bin', 'python');
export const MODERN_PEER_SCRIPT = join(ROOT, 'test', 'peers', 'modern_mcp_server.py');

function pythonHasMcp(): boolean {
  if (!existsSync(VENV_PYTHON)) return false;
  const site = join(ROOT, '.venv', 'lib');
  try {
    // The mcp package of the venv (any python3.x directory); 2.3.0 is what .ci/run installs.
    return readdirSync(site).some((d) => existsSync(join(site, d, 'site-packages', 'mcp', 'server', 'caching.py')));
  } catch {
    return false;
  }
}

export const HAVE_PYTHON_MCP = pythonHasMcp();
export const PYTHON_MCP_ABSENT_NOTE = `the Python MCP SDK (mcp 2.3.0) is not installed in ${join(ROOT, '.venv')} (.ci/run creates it: python3 -m venv .venv && .venv/bin/pip install mcp==2.3.0 uvicorn): modern-era peer tests skipped`;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface ModernPeerOptions {
  extension?: boolean;
  logging?: boolean;
  reorder?: boolean;
  /** Every other tools/list changes the description of `echo`. */
  mutate?: boolean;
}

/**
 * The Python SDK's modern server (2026-07-28: server/discover, cache hints) on a loopback port it
 * binds itself and names on stdout: a port chosen here and bound there could be taken in between
 * by another test's server, which would then answer in its place.
 */
export async function startPythonModernPeer(o: ModernPeerOptions = {}): Promise<Peer> {
  const args = [MODERN_PEER_SCRIPT];
  if (o.extension) args.push('--extension');
  if (o.logging) args.push('--logging');
  if (o.reorder) args.push('--reorder');
  if (o.mutate) args.push('--mutate');
  const child: ChildProcess = spawn(VENV_PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 30_000;
  let origin: string;
  // Ready once it named its port and that port answers (uvicorn listens after the name is printed).
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the Python peer exited: ${out}`);
    const named = /^listening (\d+)$/m.exec(out);
    if (named) {
      origin = `http://127.0.0.1:${named[1]}`;
      try {
        const r = await fetch(`${origin}/healthz-not-there`);
        await r.body?.cancel();
        break;
      } catch {
        // not listening yet
      }
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the Python peer did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    origin,
    url: `${origin}/mcp`,
    paths: [],
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

// ---------------------------------------------------------------- small servers

export interface Listening {
  origin: string;
  paths: string[];
  /** Request headers seen, in order (lowercase names). */
  headers: Array<Record<string, string | string[] | undefined>>;
  close: () => Promise<void>;
}

export async function listenApp(app: Express): Promise<Listening> {
  const paths: string[] = [];
  const headers: Listening['headers'] = [];
  const sockets = new Set<Socket>();
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.prependListener('request', (req) => {
    paths.push(`${req.method} ${req.url ?? ''}`);
    headers.push({ ...req.headers });
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    paths,
    headers,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** An origin nothing listens on (a dead host): a port bound, then released. */
export async function deadOrigin(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

export type AsLayout = 'cimd' | 'dcr' | 'both' | 'none' | 'oidc-only' | 'oauth-only' | 'dead';

/**
 * An authorization server of our own with one metadata layout. `cimd`, `dcr`, `both`, `none`
 * serve RFC 8414 and OpenID configuration alike with that registration; `oidc-only` serves only
 * /.well-known/openid-configuration (with DCR), `oauth-only` only RFC 8414 (with CIMD).
 * `dead` is an issuer nothing answers at. `claimedIssuer` makes both documents name another
 * issuer than the one they are served for (metadata a client must not use, RFC 8414 §3.3).
 */
export async function startAuthorizationServer(
  layout: AsLayout,
  o: { claimedIssuer?: string } = {},
): Promise<{ issuer: string; close: () => Promise<void>; paths: string[] }> {
  if (layout === 'dead') return { issuer: await deadOrigin(), close: async () => undefined, paths: [] };
  const app = express();
  let issuer = '';
  const doc = (): Record<string, unknown> => {
    const d: Record<string, unknown> = {
      issuer: o.claimedIssuer ?? issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    };
    if (layout === 'cimd' || layout === 'both' || layout === 'oauth-only') d.client_id_metadata_document_supported = true;
    if (layout === 'dcr' || layout === 'both' || layout === 'oidc-only') d.registration_endpoint = `${issuer}/register`;
    return d;
  };
  if (layout !== 'oauth-only')
    app.get(
      '/.well-known/openid-configuration',
      (_req, res) =>
        void res.json({
          ...doc(),
          jwks_uri: `${issuer}/jwks`,
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        }),
    );
  if (layout !== 'oidc-only') app.get('/.well-known/oauth-authorization-server', (_req, res) => void res.json(doc()));
  const l = await listenApp(app);
  issuer = l.origin;
  return { issuer, close: l.close, paths: l.paths };
}

export interface ProtectedMcpOptions {
  /** The issuer named in authorization_servers. */
  issuer: string;
  /** Put resource_metadata in the Bearer challenge (default true). */
  advertiseMetadata?: boolean;
  /** Serve the metadata at the root well-known URL instead of the path-inserted one. */
  rootMetadata?: boolean;
  /** The bearer token the server accepts (default: none accepted). */
  acceptToken?: string;
}

function echoServer(): McpServer {
  const server = new McpServer({ name: 'veronikai-protected-peer', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its input' }, async () => ({ content: [{ type: 'text', text: 'echo' }] }));
  return server;
}

/** An MCP server of the TypeScript SDK behind requireBearerAuth, publishing RFC 9728 metadata. */
export async function startProtectedMcp(o: ProtectedMcpOptions): Promise<Listening & { url: string }> {
  const app = createMcpExpressApp();
  let origin = '';
  const prm = (): Record<string, unknown> => ({
    resource: `${origin}/mcp`,
    authorization_servers: [o.issuer],
    scopes_supported: ['mcp:tools'],
    bearer_methods_supported: ['header'],
  });
  app.get(
    o.rootMetadata ? '/.well-known/oauth-protected-resource' : '/.well-known/oauth-protected-resource/mcp',
    (_req, res) => void res.json(prm()),
  );
  const verifier = {
    verifyAccessToken: async (token: string) => {
      if (o.acceptToken && token === o.acceptToken) return { token, clientId: 'owner', scopes: [], expiresAt: Date.now() / 1000 + 3600 };
      throw new InvalidTokenError('unknown token');
    },
  };
  let bearer: express.RequestHandler | null = null;
  app.all(
    '/mcp',
    (req, res, next) => bearer!(req, res, next),
    async (req, res) => {
      const server = echoServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  const l = await listenApp(app);
  origin = l.origin;
  const metadataUrl = o.rootMetadata
    ? `${origin}/.well-known/oauth-protected-resource`
    : `${origin}/.well-known/oauth-protected-resource/mcp`;
  bearer = requireBearerAuth({
    verifier,
    requiredScopes: [],
    ...(o.advertiseMetadata === false ? {} : { resourceMetadataUrl: metadataUrl }),
  });
  return { ...l, url: `${origin}/mcp` };
}

/** An A2A agent serving a crafted card (JSON value or raw text) at the given paths, plus any extra JSON routes. */
export async function startCardServer(
  card: unknown,
  paths: string[] = ['/.well-known/agent-card.json'],
  extra: Record<string, unknown> = {},
): Promise<Listening> {
  const app = express();
  let origin = '';
  const body = (): string => (typeof card === 'string' ? card : JSON.stringify(card)).split('{{ORIGIN}}').join(origin);
  for (const p of paths) app.get(p, (_req, res) => void res.type('application/json').send(body()));
  for (const [p, v] of Object.entries(extra))
    app.get(p, (_req, res) => void res.type('application/json').send(JSON.stringify(v).split('{{ORIGIN}}').join(origin)));
  const l = await listenApp(app);
  origin = l.origin;
  return l;
}

/**
 * A well-formed 0.3.0 card (an https endpoint, as the index's card suite asks, and a declared
 * security scheme); `overrides` replace top-level fields (undefined removes one).
 */
export function craftedCard(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = {
    protocolVersion: '0.3.0',
    name: 'Crafted Agent',
    description: 'A crafted agent card for the inspect tests.',
    url: 'https://agent.veronikai-test.org/a2a/jsonrpc',
    version: '1.0.0',
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Answers with a fixed message.', tags: ['test'] }],
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    security: [{ apiKey: [] }],
  };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}
