import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOptOutFile, OptOutList, parseOptOutList } from '../../src/identity/opt-out.js';

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
    expect(list.lookup({ agent_key: 'https://x.example', endpoint_url: 'https://a.b.quiet.example/a2a' })).toMatchObject({
      mode: 'unchecked',
    });
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
});

describe('the opt-out file refuses what it would otherwise misread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-optout-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entry = { match: 'host:agent.example.com', mode: 'hidden', reason: 'asked' };

  it('accepts a file that starts with a UTF-8 BOM', () => {
    const f = join(dir, 'bom.json');
    writeFileSync(f, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify([entry]))]));
    expect(loadOptOutFile(f)).toEqual([entry]);
  });

  it('refuses an unknown key, naming it', () => {
    expect(() => parseOptOutList([{ ...entry, mdoe: 'unchecked' }])).toThrow(
      'opt-out list[0] has an unknown key "mdoe" (allowed: match, mode, reason)',
    );
    expect(() => parseOptOutList([entry, { match: 'host:b.example', mode: 'hidden', reasons: 'x' }])).toThrow(
      /\[1\] has an unknown key "reasons"/,
    );
    expect(() => parseOptOutList(JSON.parse('[{"match":"host:b.example","mode":"hidden","__proto__":{}}]'))).toThrow(
      /unknown key "__proto__"/,
    );
  });

  it('refuses a wildcard that covers a whole public suffix', () => {
    for (const [match, suffix] of [
      ['host:*.com', 'com'],
      ['host:*.co.uk', 'co.uk'],
      ['host:*.CO.UK.', 'co.uk'],
      ['host:*.github.io', 'github.io'],
      ['host:*.uk', 'uk'],
    ]) {
      expect(() => parseOptOutList([{ match, mode: 'hidden' }]), match).toThrow(`covers the whole public suffix "${suffix}"`);
    }
    expect(() => parseOptOutList([{ match: 'host:*..com', mode: 'hidden' }])).toThrow(/is not host:<hostname>/);
    // one owner's domain under a suffix is fine, and so is a plain host
    expect(
      parseOptOutList([
        { match: 'host:*.acme.co.uk', mode: 'hidden' },
        { match: 'host:*.me.github.io', mode: 'unchecked' },
        { match: 'host:com', mode: 'hidden' },
      ]),
    ).toHaveLength(3);
  });
});
