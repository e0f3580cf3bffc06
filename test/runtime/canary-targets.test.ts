import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { canaryTargetsFor } from '../../src/runtime/canary-targets.js';

describe('canary targets', () => {
  const configWith = (env: NodeJS.ProcessEnv) =>
    loadConfig({ dataDir: '/tmp/x', sourceUrl: ['mcp-registry=http://127.0.0.1:8080/base'] }, env);

  it('default to the origins of the listing sources, configured ones included', () => {
    const targets = canaryTargetsFor(configWith({}));
    expect(targets).toContain('http://127.0.0.1:8080/');
    expect(targets.length).toBeGreaterThan(3);
    expect(new Set(targets).size).toBe(targets.length);
  });

  it('come from VERONIKAI_CANARY_URLS when it is set, and an empty value turns the canary off', () => {
    expect(canaryTargetsFor(configWith({ VERONIKAI_CANARY_URLS: 'https://one.example/ping, https://two.example/' }))).toEqual([
      'https://one.example/ping',
      'https://two.example/',
    ]);
    expect(canaryTargetsFor(configWith({ VERONIKAI_CANARY_URLS: '' }))).toEqual([]);
  });

  it('refuses a target that is not an http(s) URL, naming the setting', () => {
    expect(() => configWith({ VERONIKAI_CANARY_URLS: 'ftp://x.example/' })).toThrow(/VERONIKAI_CANARY_URLS/);
  });
});
