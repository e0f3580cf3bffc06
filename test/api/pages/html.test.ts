import { describe, expect, it } from 'vitest';
import { parseReason } from '../../../src/api/pages/agent.js';
import { contentSecurityPolicy, PAGE_CSP, prefersHtml } from '../../../src/api/pages/html.js';

describe('content negotiation for GET /agents/:id', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/json', false],
    ['application/json, text/html', false],
    ['text/html, application/json', true],
    ['text/html', true],
    ['text/*', true],
    ['text/html;q=0.5, application/json', false],
    ['application/json;q=0.4, text/html;q=0.9', true],
    ['text/html;q=0, */*', false],
    // Chromium's navigation
    [
      'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
      true,
    ],
    // curl
    ['*/*;q=0.8, text/plain', false],
  ])('%j → html %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });
});

describe('page policy', () => {
  it('runs no script on a page without one, and only the hashed one on a page with one', () => {
    expect(PAGE_CSP).toContain("script-src 'none'");
    expect(PAGE_CSP).toContain("default-src 'none'");
    expect(contentSecurityPolicy({ style: 'a', script: 'b' })).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
  });
});

describe('verdict reasons', () => {
  it('splits a reason line into its rule, location and message', () => {
    expect(parseReason('A2A-CARD-005 #/name: name must be a non-empty string.')).toEqual({
      ruleId: 'A2A-CARD-005',
      location: '#/name',
      message: 'name must be a non-empty string.',
    });
    expect(parseReason('warn: MCP-T-004 https://x.dev/mcp: header missing: x')).toEqual({
      ruleId: 'MCP-T-004',
      location: 'https://x.dev/mcp',
      message: 'header missing: x',
    });
    expect(parseReason('MCP-001')).toEqual({ ruleId: 'MCP-001', location: '', message: '' });
    expect(parseReason('unknown: HTTP 429')).toEqual({ ruleId: null, location: '', message: 'unknown: HTTP 429' });
  });
});
