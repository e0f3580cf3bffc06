import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseSourceSettings, UsageError } from '../../../src/config.js';
import { mergeAgent, OptOutList, parseOptOutList, type ListingRow } from '../../../src/processors/listings-to-agents.js';
import { checkSourceSettings, formatSummary } from '../../../src/runtime/crawl.js';

describe('opt-out list', () => {
  const list = new OptOutList(
    parseOptOutList([
      { match: 'https://Agent.Example.com:443/.well-known/agent-card.json', mode: 'unchecked', reason: 'owner asked by e-mail' },
      { match: 'host:MCP.hidden.example', mode: 'hidden', reason: 'owner asked to be hidden' },
      { match: 'host:*.quiet.example', mode: 'unchecked', reason: 'whole domain' },
      { match: 'https://both.example/mcp', mode: 'unchecked', reason: 'u' },
      { match: 'host:both.example', mode: 'hidden', reason: 'h' },
    ]),
  );

  it('matches an agent key in any spelling, a host, or a host suffix; hidden wins', () => {
    expect(list.lookup({ agent_key: 'https://agent.example.com' })).toEqual({ mode: 'unchecked', reason: 'owner asked by e-mail' });
    expect(list.lookup({ agent_key: 'https://mcp.hidden.example/mcp' })).toEqual({ mode: 'hidden', reason: 'owner asked to be hidden' });
    expect(list.lookup({ agent_key: 'https://x.example', endpoint_url: 'https://a.b.quiet.example/a2a' })).toMatchObject({ mode: 'unchecked' });
    expect(list.lookup({ agent_key: 'https://quiet.example/mcp' })).toBeNull();
    expect(list.lookup({ agent_key: 'https://both.example/mcp' })).toMatchObject({ mode: 'hidden' });
    expect(list.lookup({ agent_key: 'https://other.example/mcp' })).toBeNull();
  });

  it('refuses a malformed list, naming the entry', () => {
    expect(() => parseOptOutList({})).toThrow(/JSON array/);
    expect(() => parseOptOutList([{ match: 'host:x.example', mode: 'gone' }])).toThrow(/\[0\]\.mode/);
    expect(() => parseOptOutList([{ match: 'ftp://x', mode: 'hidden' }])).toThrow(/\[0\]\.match/);
    expect(() => parseOptOutList([{ match: 'host:a b', mode: 'hidden' }])).toThrow(/host:<hostname>/);
  });

  it('is validated at start through the configuration', () => {
    const dir = mkdtempSync(join(tmpdir(), 'veronikai-optout-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify([{ match: 'host:a.example', mode: 'hidden', reason: 'r' }]));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '[{"match": 1}]');
    expect(loadConfig({ dataDir: dir }, { VERONIKAI_OPT_OUT_FILE: good }).optOutFile).toBe(good);
    expect(() => loadConfig({ dataDir: dir }, { VERONIKAI_OPT_OUT_FILE: bad })).toThrow(UsageError);
    expect(() => loadConfig({ dataDir: dir, optOutFile: join(dir, 'missing.json') }, {})).toThrow(/cannot be read/);
  });
});

describe('agents from tombstoned listings', () => {
  const row = (source: string, version: number, status: string, extra: Partial<ListingRow> = {}): ListingRow => ({
    source, item_id: `${source}-item`, agent_key: 'https://mcp.acme.dev/mcp', protocol: 'mcp', name: `from ${source}`, description: 'd',
    version_label: '1', endpoint_url: 'https://mcp.acme.dev/mcp', endpoint_transport: 'streamable-http', card_url: '', server_json: '',
    status, raw: '{}', raw_truncated: 0, tombstoned: status === 'deleted' || status === 'delisted' ? 1 : 0,
    content_hash: 'h', changed_at: '2026-01-01 00:00:00.000',
    first_seen: '2026-01-01 00:00:00.000', last_seen: '2026-01-02 00:00:00.000', last_event_id: 'e', version, ...extra,
  });

  it('drops a delisted source from the agent, and marks it inactive when no listing is live', () => {
    const a = mergeAgent('https://mcp.acme.dev/mcp', [row('mcp-registry', 10, 'active'), row('smithery', 20, 'delisted')]);
    expect(a).toMatchObject({ active: 1, sources: ['mcp-registry'], inactive_since: null, opt_out: '', name: 'from mcp-registry' });
    const gone = mergeAgent('https://mcp.acme.dev/mcp', [row('mcp-registry', 30, 'deleted'), row('smithery', 20, 'delisted')]);
    expect(gone).toMatchObject({ active: 0, sources: [], inactive_since: '1970-01-01 00:00:00.030' });
    const opted = mergeAgent('https://mcp.acme.dev/mcp', [row('mcp-registry', 10, 'active')], new OptOutList([{ match: 'host:mcp.acme.dev', mode: 'hidden', reason: 'asked' }]));
    expect(opted).toMatchObject({ opt_out: 'hidden', opt_out_reason: 'asked', active: 1 });
  });
});

describe('per-source settings', () => {
  it('reads switches, budgets and pacing from the environment and flags', () => {
    const s = parseSourceSettings(
      { disableSource: ['neuronto'], maxPages: ['smithery=5'], pageDelay: ['*=0'] },
      { VERONIKAI_SOURCES_DISABLED: 'smithery, hf-spaces', VERONIKAI_SOURCES_TERMS_FORBID: 'a2a-registry', VERONIKAI_SOURCE_PAGE_DELAY: 'neuronto=2s,hf-spaces=250ms' },
    );
    expect(s).toEqual({
      disabled: ['smithery', 'hf-spaces', 'neuronto'],
      termsForbidden: ['a2a-registry'],
      maxPages: { smithery: 5 },
      pageDelayMs: { neuronto: 2000, 'hf-spaces': 250, '*': 0 },
    });
    expect(() => parseSourceSettings({ maxPages: ['smithery=0'] }, {})).toThrow(/whole number/);
    expect(() => parseSourceSettings({ pageDelay: ['smithery=fast'] }, {})).toThrow(/delay such as/);
    expect(() => checkSourceSettings(parseSourceSettings({ disableSource: ['smithry'] }, {}))).toThrow(/unknown source "smithry"/);
  });

  it('prints a per-source summary line, with skips and their reason', () => {
    const base = {
      source: 'hf-spaces', mode: 'full' as const, pages: 3, details: 0, items: 12, new: 2, changed: 1, delisted: 1, invalid: 0,
      errors: 0, complete: true, failure: null, skipped: null, notes: [],
    };
    expect(formatSummary(base)).toBe('hf-spaces (full): 3 page(s), 12 item(s): 2 new, 1 changed, 1 delisted, 0 invalid, 0 error(s), complete');
    expect(formatSummary({ ...base, complete: false, skipped: 'robots: unreachable (HTTP 503)' })).toBe('hf-spaces: skipped (robots: unreachable (HTTP 503))');
    expect(formatSummary({ ...base, complete: false, errors: 1, failure: 'http_5xx: HTTP 502' })).toMatch(/INCOMPLETE: http_5xx: HTTP 502$/);
  });
});
