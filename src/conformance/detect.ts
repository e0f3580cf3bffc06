import { hasKey, isObject, own, parseJson } from '../core/json-util.js';

/**
 * Tells an A2A agent card from an MCP server.json (for `veronikai check` without --kind).
 * server.json: a `$schema` naming a modelcontextprotocol schema, or a reverse-DNS `name`
 * ("namespace/name") together with `packages` or `remotes`. A card: any of skills,
 * capabilities, defaultInputModes, supportedInterfaces, protocolVersion. Otherwise the file
 * name decides (a name containing "server.json" or "server_json"), else card.
 */
export type DocumentKind = 'a2a-card' | 'mcp-server-json';

export function detectKind(text: string, fileName = ''): DocumentKind {
  const r = parseJson(text);
  if (r.ok && isObject(r.value)) {
    const d = r.value;
    const schema = own(d, '$schema');
    if (typeof schema === 'string' && schema.includes('modelcontextprotocol')) return 'mcp-server-json';
    const name = own(d, 'name');
    if (typeof name === 'string' && /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(name) && (hasKey(d, 'packages') || hasKey(d, 'remotes')))
      return 'mcp-server-json';
    for (const k of ['skills', 'capabilities', 'defaultInputModes', 'supportedInterfaces', 'protocolVersion'])
      if (hasKey(d, k)) return 'a2a-card';
    if (hasKey(d, 'packages') || hasKey(d, 'remotes')) return 'mcp-server-json';
  }
  const base = fileName.replace(/\\/g, '/').split('/').pop() ?? '';
  return /server[._-]json|server\.json$/i.test(base) ? 'mcp-server-json' : 'a2a-card';
}
