/** The MCP, OAuth and A2A texts the inspect suite restates: a section and its link. */

export interface SpecRef {
  section: string;
  link: string;
}

export const MCP26 = 'https://modelcontextprotocol.io/specification/2026-07-28';
export const MCP25 = 'https://modelcontextprotocol.io/specification/2025-11-25';
const SCHEMA26 = 'https://github.com/modelcontextprotocol/modelcontextprotocol/blob/2026-07-28/schema/2026-07-28/schema.json';
const A2A = 'https://a2a-protocol.org/v0.3.0/specification/';

export const DISCOVER: SpecRef = { section: 'MCP 2026-07-28 server/discover', link: `${MCP26}/server/discover` };
export const STREAMABLE26: SpecRef = { section: 'MCP 2026-07-28 Streamable HTTP', link: `${MCP26}/basic/transports/streamable-http` };
export const LIFECYCLE: SpecRef = { section: 'MCP 2025-11-25 Lifecycle, Initialization', link: `${MCP25}/basic/lifecycle#initialization` };
export const TRANSPORTS25: SpecRef = {
  section: 'MCP 2025-11-25 Transports, Streamable HTTP',
  link: `${MCP25}/basic/transports#streamable-http`,
};
export const SESSIONS25: SpecRef = {
  section: 'MCP 2025-11-25 Transports, Session Management',
  link: `${MCP25}/basic/transports#session-management`,
};
export const SSE2024: SpecRef = {
  section: 'MCP 2024-11-05 Transports, HTTP with SSE (deprecated since 2025-03-26)',
  link: 'https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse',
};
export const TOOLS: SpecRef = { section: 'MCP 2025-11-25 Tools, Listing Tools', link: `${MCP25}/server/tools#listing-tools` };
export const CACHE: SpecRef = { section: 'MCP 2026-07-28 schema: CacheableResult (ListToolsResult.ttlMs, cacheScope)', link: SCHEMA26 };
export const CHANGELOG26: SpecRef = {
  section: 'MCP 2026-07-28 Key Changes (Roots, Sampling, Logging deprecated)',
  link: `${MCP26}/changelog`,
};
export const CAPS26: SpecRef = {
  section: 'MCP 2026-07-28 schema: ServerCapabilities.extensions (key naming rules of _meta)',
  link: SCHEMA26,
};
export const AUTH: SpecRef = {
  section: 'MCP 2025-11-25 Authorization, Protected Resource Metadata Discovery',
  link: `${MCP25}/basic/authorization#protected-resource-metadata-discovery-requirements`,
};
export const AS_DISCOVERY: SpecRef = {
  section: 'MCP 2025-11-25 Authorization, Authorization Server Metadata Discovery',
  link: `${MCP25}/basic/authorization#authorization-server-metadata-discovery`,
};
export const REGISTRATION: SpecRef = {
  section: 'MCP 2025-11-25 Authorization, Client Registration Approaches',
  link: `${MCP25}/basic/authorization#client-registration-approaches`,
};

/** A section of the A2A 0.3.0 specification. */
export const card = (section: string, anchor: string): SpecRef => ({ section: `A2A 0.3.0 ${section}`, link: A2A + anchor });
