/** The MCP specification and registry texts the MCP suite restates: a section and its link. */

export interface SpecRef {
  section: string;
  link: string;
}

const MCP_TRANSPORTS = 'https://modelcontextprotocol.io/specification/2025-06-18/basic/transports';
const MCP_AUTH = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization';
const SERVER_JSON_DOC = 'https://github.com/modelcontextprotocol/registry/blob/main/docs/reference/server-json/generic-server-json.md';
export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
export const PRM_DISCOVERY = `${MCP_AUTH}#protected-resource-metadata-discovery-requirements`;

/** A field of the registry's server.json reference. */
export const serverJson = (field: string): SpecRef => ({ section: `server.json ${field}`, link: SERVER_JSON_DOC });

export const STREAMABLE: SpecRef = { section: 'MCP 2025-06-18 Transports, Streamable HTTP', link: `${MCP_TRANSPORTS}#streamable-http` };
export const LISTENING: SpecRef = {
  section: 'MCP 2025-06-18 Transports, Listening for messages from the server',
  link: `${MCP_TRANSPORTS}#listening-for-messages-from-the-server`,
};
