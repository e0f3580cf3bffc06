import { flag, type VerdictRecorder } from '../../findings.js';
import { isObject, jsonType, own, ptr, sanitize, type JsonObject } from '../../../core/json-util.js';
import { classifyHost } from '../../../core/private-host.js';
import type { Rule } from '../../rule.js';
import type { McpInput } from './input.js';
import { serverJson } from './spec.js';

/**
 * MCP-Q-008 to 011 and MCP-Q-104: at least one remote, each of type streamable-http or sse, with
 * an https URL on a public host, and no URL template a user must fill in. A remote URL that
 * starts with a template variable ("{baseUrl}/mcp") cannot be judged for scheme or host, and one
 * whose host holds a variable cannot be judged for host; both still draw the template warning.
 */

export const REMOTES_PRESENT: Rule<McpInput> = {
  id: 'MCP-Q-008',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'At least one remote',
  description: 'remotes is missing or empty: there is no remote endpoint to reach.',
  ...serverJson('remotes'),
  check: checkRemotes,
};

export const REMOTE_TYPE: Rule<McpInput> = {
  id: 'MCP-Q-009',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Remote transport type',
  description: "A remote's type is not streamable-http or sse.",
  ...serverJson('remotes[].type'),
  check: checkRemotes,
};

export const REMOTE_HTTPS: Rule<McpInput> = {
  id: 'MCP-Q-010',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Remote URL is https',
  description: "A remote's url is missing, not a URL, or not https.",
  ...serverJson('remotes[].url'),
  check: checkRemotes,
};

export const REMOTE_PUBLIC: Rule<McpInput> = {
  id: 'MCP-Q-011',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Remote host is public',
  description: "A remote's url points at a placeholder host (example.com, …) or a private, loopback or link-local address.",
  ...serverJson('remotes[].url'),
  check: checkRemotes,
};

export const REMOTE_NO_TEMPLATE: Rule<McpInput> = {
  id: 'MCP-Q-104',
  suite: 'mcp',
  component: 'server.json',
  severity: 'warn',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Remote URL needs no user values',
  description: 'A remote url is a template ({variable}) that a user must fill in; it cannot be probed as listed.',
  ...serverJson('remotes[].url variables (schema 2025-12-11)'),
  check: checkRemotes,
};

function checkRemotes({ rec, doc }: McpInput): void {
  rec.pass(REMOTES_PRESENT, REMOTE_TYPE, REMOTE_HTTPS, REMOTE_PUBLIC, REMOTE_NO_TEMPLATE);
  const remotes = own(doc as JsonObject, 'remotes');
  if (!Array.isArray(remotes) || remotes.length === 0) {
    flag(
      rec,
      REMOTES_PRESENT,
      'document',
      '/remotes',
      remotes === undefined
        ? 'there are no remotes: nothing to reach (package-only server)'
        : Array.isArray(remotes)
          ? 'remotes is empty'
          : `remotes must be a list, found ${jsonType(remotes)}`,
    );
    return;
  }
  for (let i = 0; i < remotes.length; i++) checkRemote(rec, remotes[i], i);
}

const TEMPLATE = /\{[^{}]*\}/;

const HOST_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private (RFC 1918 or local-use) address',
  'link-local': 'a link-local address',
  cgnat: 'a carrier-grade NAT address (100.64.0.0/10)',
  'unique-local': 'an IPv6 unique local address',
  'site-local': 'an IPv6 site-local address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  'local-name': 'a local-network host name',
  placeholder: 'a placeholder host',
};

/** A remote URL as a message shows it; rendered only for a finding (most remotes draw none). */
function shownUrl(url: string): string {
  return JSON.stringify(sanitize(url, 100));
}

function checkRemote(rec: VerdictRecorder, remote: unknown, i: number): void {
  const base = ptr('remotes', i);
  if (!isObject(remote)) {
    flag(rec, REMOTE_TYPE, 'document', base, `remote ${i} must be an object, found ${jsonType(remote)}`);
    return;
  }
  const type = own(remote, 'type');
  if (type !== 'streamable-http' && type !== 'sse') {
    flag(
      rec,
      REMOTE_TYPE,
      'document',
      `${base}/type`,
      type === undefined
        ? `remote ${i} has no type (streamable-http or sse)`
        : `remote ${i} type ${typeof type === 'string' ? JSON.stringify(sanitize(type, 40)) : jsonType(type)} is not streamable-http or sse`,
    );
  }
  const url = own(remote, 'url');
  const at = `${base}/url`;
  if (typeof url !== 'string' || url.trim() === '') {
    flag(
      rec,
      REMOTE_HTTPS,
      'document',
      at,
      url === undefined
        ? `remote ${i} has no url`
        : `remote ${i} url must be a non-empty string, found ${typeof url === 'string' ? 'an empty string' : jsonType(url)}`,
    );
    return;
  }
  const templated = TEMPLATE.test(url);
  if (templated) flag(rec, REMOTE_NO_TEMPLATE, 'document', at, `remote ${i} url ${shownUrl(url)} is a template that needs user values`);
  if (url.trimStart().startsWith('{')) return; // scheme and host come from a variable
  if (!/^https:\/\//i.test(url)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    flag(
      rec,
      REMOTE_HTTPS,
      'document',
      at,
      scheme
        ? `remote ${i} url ${shownUrl(url)} uses ${sanitize(scheme.toLowerCase(), 20)}:, not https:`
        : `remote ${i} url ${shownUrl(url)} is not an absolute https URL`,
    );
    return;
  }
  const authority = /^https:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  if (TEMPLATE.test(authority) || authority.includes('{')) return; // host holds a variable
  checkHost(rec, url, templated, i, at);
}

function checkHost(rec: VerdictRecorder, url: string, templated: boolean, i: number, at: string): void {
  let host: string;
  try {
    host = new URL(templated ? url.replace(/\{[^{}]*\}/g, 'x') : url).hostname;
  } catch {
    flag(rec, REMOTE_HTTPS, 'document', at, `remote ${i} url ${shownUrl(url)} is not a valid URL`);
    return;
  }
  const cls = classifyHost(host);
  if (cls) {
    const via = cls.via ? ` (${cls.via})` : '';
    flag(
      rec,
      REMOTE_PUBLIC,
      'document',
      at,
      `remote ${i} url points at ${HOST_WORDS[cls.class] ?? cls.class}${via}: ${JSON.stringify(sanitize(host, 80))}`,
    );
  }
}
