import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from '../../../src/core/json-locate.js';
import { renderPluginSarif } from '../../../src/conformance/plugin/index.js';
import { PLUGIN_FIXTURES, checkOne } from './helpers.js';

/** What JSON.parse says about `text`: null when it parses, else its message. */
function parseMessage(text: string): string | null {
  try {
    JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The scanner stops where JSON.parse stops: at the position its message names ("at position N",
 * Node 20), at the end for "Unexpected end of JSON input", and on the very token an
 * "Unexpected token 'x'" message (which names no position) quotes.
 */
function agrees(text: string): boolean {
  const off = jsonErrorOffset(text);
  const msg = parseMessage(text);
  if (msg === null) return off === null;
  if (off === null) return false;
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const pos = /at position (\d+)/.exec(msg);
  if (pos) return Number(pos[1]) + bom === off;
  if (/Unexpected end of JSON input/.test(msg)) return off === text.length;
  const token = /^Unexpected token '(.)'/su.exec(msg);
  if (token) return text.slice(off).startsWith(token[1]!);
  return true; // another message form (a newer Node): nothing to compare it with
}

describe('where JSON text stops being JSON', () => {
  it('agrees with JSON.parse on hand-picked breakage', () => {
    const cases = [
      '{\n  "a": 1,\n  b: 2\n}',
      '{"a": 1,}',
      '{"a": tru}',
      '{"a": 1',
      '',
      '  ',
      '[1 2]',
      '{"a":"x\ny"}',
      '{"a": 1} x',
      '"abc',
      '-',
      '01',
      '1.',
      '1e+',
      '"\\x"',
      '"\\u12g4"',
      '{ "mcpServers": }',
      '[1,]',
      '{"a" 1}',
      "{'a':1}",
      '[1]//c',
      '\ufeff{"a":}',
      '{"a":1,"b"}',
      '[+1]',
      '[[[]]',
      '\ufeff[1]',
      '{"a":[{"b":[null,true,false,-0.5e-3,"\\u00e9"]}]}',
    ];
    for (const t of cases) expect(agrees(t), JSON.stringify(t)).toBe(true);
    expect(jsonErrorOffset('{\n  "a": 1,\n  b: 2\n}')).toBe(14);
    expect(jsonErrorOffset('{"a":[{"b":[null,true,false,-0.5e-3,"\\u00e9"]}]}')).toBeNull();
  });

  it('agrees with JSON.parse on 400 broken documents (a character removed, inserted or replaced)', () => {
    const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v, null, 1));
    const piece = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"',
      '\\',
      ' ',
      '\n',
      '0',
      '-',
      '.',
      'e',
      't',
      'n',
      'x',
      "'",
      '\u0001',
      '\u00e9',
      '/',
    );
    fc.assert(
      fc.property(json, fc.nat(), fc.constantFrom('remove', 'insert', 'replace'), piece, (text, at, how, ch) => {
        const i = text.length === 0 ? 0 : at % text.length;
        const broken =
          how === 'remove'
            ? text.slice(0, i) + text.slice(i + 1)
            : how === 'insert'
              ? text.slice(0, i) + ch + text.slice(i)
              : text.slice(0, i) + ch + text.slice(i + 1);
        expect(agrees(broken), JSON.stringify(broken)).toBe(true);
      }),
      { numRuns: 400, seed: 12 },
    );
  });

  it('handles deep nesting without recursion', () => {
    expect(jsonErrorOffset('['.repeat(100_000) + ']'.repeat(100_000))).toBeNull();
    expect(jsonErrorOffset('['.repeat(100_000))).toBe(100_000);
  });
});

describe('a plugin.json or mcp.json that is not JSON is located at the parse error (not at 1:1)', () => {
  it('PLG-003: the unquoted key on line 3', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-003-not-json'));
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ ruleId: 'PLG-003', file: 'plugin.json', line: 3, column: 3 });
    const sarif = renderPluginSarif(r) as {
      runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { region: { startLine: number; startColumn: number } } }> }> }>;
    };
    expect(sarif.runs[0]!.results[0]!.locations[0]!.physicalLocation.region).toMatchObject({ startLine: 3, startColumn: 3 });
  });

  it('PLG-013: the missing value, where Node names no position; the message quotes no file text', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-013-not-json'));
    const f = r.findings.find((x) => x.ruleId === 'PLG-013')!;
    expect(f).toMatchObject({ file: 'mcp.json', line: 1, column: 17 });
    expect(f.message).toMatch(/^mcp\.json is not JSON: Unexpected token '\}'; MCP is disabled/);
    expect(f.message).not.toContain('mcpServers');
  });
});
