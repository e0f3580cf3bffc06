import { describe, expect, it } from 'vitest';
import { canonicalHost, hostKey, normalizeUrl } from '../../src/core/canonical-url.js';
import * as identity from '../../src/identity/agent-key.js';

describe('canonicalHost', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['example.com...', 'example.com'],
    [' api.example.com ', 'api.example.com'],
    ['[::1]', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['FE80::1%eth0', 'fe80::1'],
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['bücher.de', 'xn--bcher-kva.de'],
  ])('%s → %s', (host, canonical) => {
    expect(canonicalHost(host)).toBe(canonical);
  });

  it.each(['', '   ', '.', 'a b', '[::1', '1::2::3', 'exa<mple.com'])('%j is no valid host', (host) => {
    expect(canonicalHost(host)).toBeNull();
  });
});

describe('hostKey', () => {
  it('is the canonical host when there is one', () => {
    expect(hostKey('[::1]')).toBe('::1');
    expect(hostKey('EXAMPLE.com.')).toBe('example.com');
  });

  it('falls back to the same spelling rules for text that is no valid host', () => {
    expect(hostKey(' A B. ')).toBe('a b');
    expect(hostKey('[G::1]')).toBe('g::1');
    expect(hostKey('')).toBe('');
  });
});

describe('the identity module re-exports the one canonicaliser', () => {
  it('is the same function', () => {
    expect(identity.canonicalHost).toBe(canonicalHost);
    expect(identity.hostKey).toBe(hostKey);
    expect(identity.normalizeUrl).toBe(normalizeUrl);
  });
});
