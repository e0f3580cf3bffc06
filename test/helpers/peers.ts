/**
 * Real protocol peers on loopback, built from the official SDKs:
 * - MCP servers from @modelcontextprotocol/sdk: Streamable HTTP (stateless and stateful),
 *   legacy HTTP+SSE, and one behind bearer auth that publishes RFC 9728 metadata;
 * - A2A agents from @a2a-js/sdk serving their card at the listing URL, at
 *   /.well-known/agent-card.json, or only at the legacy /.well-known/agent.json.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { AgentCard } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Express } from 'express';

export interface Peer {
  /** Origin, e.g. http://127.0.0.1:40123 */
  origin: string;
  /** The URL a listing would declare for this peer. */
  url: string;
  /** Request paths seen, in order. */
  paths: string[];
  close: () => Promise<void>;
}

async function listen(app: Express, path: string): Promise<Peer & { server: Server }> {
  const paths: string[] = [];
  const sockets = new Set<Socket>();
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.prependListener('request', (req) => paths.push(req.url ?? ''));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    origin,
    url: `${origin}${path}`,
    paths,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'veronikai-test-peer', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its input' }, async () => ({
    content: [{ type: 'text', text: 'echo' }],
  }));
  return server;
}

/** The SDK's stateless Streamable HTTP app on /mcp: a fresh server and transport per request (the SDK's pattern). */
export function mcpStatelessApp(): ReturnType<typeof createMcpExpressApp> {
  const app = createMcpExpressApp();
  app.all('/mcp', async (req, res) => {
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return app;
}

/** Streamable HTTP, stateless, on a free port. */
export async function startMcpStreamableStateless(): Promise<Peer> {
  return listen(mcpStatelessApp(), '/mcp');
}

/** Streamable HTTP, stateful: one transport with session ids (a GET before initialize is refused). */
export async function startMcpStreamableStateful(): Promise<Peer> {
  const app = createMcpExpressApp();
  const server = mcpServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  app.all('/mcp', async (req, res) => {
    await transport.handleRequest(req, res, req.body);
  });
  const peer = await listen(app, '/mcp');
  return {
    ...peer,
    close: async () => {
      await transport.close();
      await server.close();
      await peer.close();
    },
  };
}

/** Legacy HTTP+SSE (2024-11-05): GET /sse opens the stream whose first event is `endpoint`. */
export async function startMcpLegacySse(): Promise<Peer> {
  const app = createMcpExpressApp();
  const transports = new Map<string, SSEServerTransport>();
  app.get('/sse', async (_req, res) => {
    const transport = new SSEServerTransport('/messages', res);
    transports.set(transport.sessionId, transport);
    res.on('close', () => transports.delete(transport.sessionId));
    await mcpServer().connect(transport);
  });
  app.post('/messages', async (req, res) => {
    const t = transports.get(String(req.query.sessionId ?? ''));
    if (!t) {
      res.status(400).send('unknown session');
      return;
    }
    await t.handlePostMessage(req, res, req.body);
  });
  return listen(app, '/sse');
}

export interface AuthPeerOptions {
  /** Advertise resource_metadata in WWW-Authenticate (default true). */
  advertiseMetadata?: boolean;
  /** Override the advertised resource_metadata value (e.g. a blocked address). */
  resourceMetadataUrl?: string;
  /** Answer 403 insufficient_scope instead of 401 (a token is accepted but lacks a scope). */
  forbid?: boolean;
}

/**
 * An MCP server behind bearer auth (the SDK's requireBearerAuth) that publishes RFC 9728
 * metadata at /.well-known/oauth-protected-resource/mcp (the SDK's mcpAuthMetadataRouter).
 */
export async function startMcpWithBearerAuth(options: AuthPeerOptions = {}): Promise<Peer> {
  const app = createMcpExpressApp();
  const peer = await listen(app, '/mcp');
  const resourceServerUrl = new URL(peer.url);
  const issuer = new URL(`${peer.origin}/`);
  app.use(
    mcpAuthMetadataRouter({
      oauthMetadata: {
        issuer: issuer.href,
        authorization_endpoint: `${peer.origin}/authorize`,
        token_endpoint: `${peer.origin}/token`,
        response_types_supported: ['code'],
      },
      resourceServerUrl,
      scopesSupported: ['mcp:tools'],
      resourceName: 'VeronikAI test peer',
    }),
  );
  const advertised =
    options.advertiseMetadata === false
      ? undefined
      : (options.resourceMetadataUrl ?? getOAuthProtectedResourceMetadataUrl(resourceServerUrl));
  const bearer = requireBearerAuth({
    verifier: {
      verifyAccessToken: async (token: string) => {
        if (options.forbid) return { token, clientId: 'c', scopes: [], expiresAt: Date.now() / 1000 + 3600 };
        throw new InvalidTokenError('unknown token');
      },
    },
    requiredScopes: options.forbid ? ['mcp:tools'] : [],
    ...(advertised ? { resourceMetadataUrl: advertised } : {}),
  });
  app.all('/mcp', (req, res, next) => {
    // Probes send no Authorization header; the forbid variant needs a token to reach the scope check.
    if (options.forbid) req.headers.authorization = 'Bearer test-token';
    next();
  });
  app.all('/mcp', bearer, async (req, res) => {
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return peer;
}

// ---------------------------------------------------------------- A2A

export function testAgentCard(url: string, name = 'VeronikAI Test Agent'): AgentCard {
  return {
    name,
    description: 'A test agent that answers with a fixed message.',
    version: '1.0.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }],
    provider: { url: 'https://veronikai.invalid', organization: 'VeronikAI tests' },
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Answers with a fixed message.',
        tags: ['test'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

class FixedAnswerExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    bus.publish({
      kind: 'message',
      data: {
        messageId: randomUUID(),
        contextId: ctx.contextId,
        taskId: '',
        role: 2 as never,
        parts: [],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
    });
    bus.finished();
  }
  async cancelTask(): Promise<void> {}
}

export interface A2APeerOptions {
  /** Serve the card at this listing path (e.g. /agents/alpha/card.json). */
  listingPath?: string;
  /** Serve the card at /.well-known/agent-card.json (default true). */
  wellKnown?: boolean;
  /** Serve the card at the legacy /.well-known/agent.json (default false). */
  legacy?: boolean;
  /** Serve an HTML page with status 200 at the listing path instead of a card. */
  listingHtml?: boolean;
}

/**
 * An A2A agent from @a2a-js/sdk (DefaultRequestHandler + express handlers). `url` is the
 * listing URL: listingPath when given, else the origin root.
 */
export async function startA2AAgent(options: A2APeerOptions = {}): Promise<Peer> {
  const app = express();
  // `handler` is created once the server listens (its card names the server's origin); requests, the only readers, come after.
  const cardHandler = (legacyCompat: boolean) =>
    agentCardHandler({
      agentCardProvider: () => handler.getAgentCard(),
      ...(legacyCompat ? { legacyCompat: { enabled: true } } : {}),
    });
  if (options.listingPath) {
    if (options.listingHtml) {
      app.get(options.listingPath, (_req, res) => {
        res.status(200).type('html').send('<!doctype html><title>Agent</title><p>Our agent</p>');
      });
    } else {
      app.use(options.listingPath, cardHandler(false));
    }
  }
  if (options.wellKnown ?? true) app.use('/.well-known/agent-card.json', cardHandler(false));
  if (options.legacy) app.use('/.well-known/agent.json', cardHandler(true));
  const peer = await listen(app, options.listingPath ?? '/');
  const handler = new DefaultRequestHandler(
    testAgentCard(`${peer.origin}/a2a/jsonrpc`),
    new InMemoryTaskStore(),
    new FixedAnswerExecutor(),
  );
  app.use('/a2a/jsonrpc', express.json(), jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return peer;
}
