import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, hashInputs, sha256Hex } from '../../src/core/canonical-json.js';
import { CATALOGUE, RULES } from '../../src/conformance/catalogue.js';
import { flag, verdictRecorder } from '../../src/conformance/findings.js';
import { parseIp } from '../../src/core/ip-ranges.js';
import { escapePointer, sanitize } from '../../src/core/json-util.js';
import {
  isPlaceholderDescription,
  normalizeText,
  PLACEHOLDER_PATTERNS,
  PLACEHOLDERS,
  RAW_TEMPLATE_MARKERS,
  repeatsName,
} from '../../src/conformance/mcp-quality.js';
import ipaddr from 'ipaddr.js';

/**
 * The engine's fast paths (the conformance benchmark, bench/conformance.ts) must answer exactly
 * as the plain code they replaced: each is held here to that code, kept as the reference.
 */

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Canonical JSON the plain recursive way: sorted keys, JSON.stringify for every scalar. */
function canonicalReference(v: unknown): string {
  if (v === null || v === undefined || typeof v === 'function' || typeof v === 'symbol') return 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalReference).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined && typeof o[k] !== 'function' && typeof o[k] !== 'symbol')
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalReference(o[k])}`).join(',')}}`;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? (Object.is(v, -0) ? '0' : String(v)) : 'null';
  return JSON.stringify(v);
}

describe('canonical JSON', () => {
  it('is the plain recursive writer on arbitrary values, lone surrogates and all, and hashInputs hashes its UTF-8', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udc00', '😀', 'é', 'a') }),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.integer(),
        fc.constantFrom(null, undefined, true, false, -0, NaN, Infinity),
        fc.array(tie('v'), { maxLength: 5 }),
        fc.dictionary(text, tie('v'), { maxKeys: 5 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(canonicalReference(v));
        expect(hashInputs(v)).toBe('sha256:' + sha256Hex(utf8(canonicalJson(v))));
      }),
      { numRuns: 3000 },
    );
  });

  it('hashes long texts, survives deep nesting, and refuses what is not JSON data', () => {
    const long = 'x"\\\n\u0001é😀'.repeat(50_000);
    expect(hashInputs({ kind: 'k', text: long })).toBe('sha256:' + sha256Hex(utf8(canonicalReference({ kind: 'k', text: long }))));
    expect(hashInputs({ a: 1 })).toBe('sha256:' + sha256Hex('{"a":1}'));
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(canonicalJson(deep)).toBe('['.repeat(100_000) + '1' + ']'.repeat(100_000));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => hashInputs(cyclic)).toThrow(TypeError);
    expect(() => hashInputs({ n: 1n })).toThrow(TypeError);
    expect(hashInputs([1, 'a'])).toBe('sha256:' + sha256Hex('[1,"a"]'));
  });
});

describe('normalizeText scan', () => {
  const reference = (s: string): string =>
    s
      .toLowerCase()
      .normalize('NFKC')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  it('equals the Unicode-class regex it replaced', () => {
    const unit = fc.constantFrom(
      'Ａ',
      'ﬁ',
      '①',
      'İ',
      'ẞ',
      '\u0301',
      '\ud800',
      '\udc00',
      '😀',
      '٣',
      ' ',
      '-',
      '_',
      'a',
      'Z',
      '9',
      '\t',
      '—',
    );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string(), fc.string({ unit })), (s) => {
        expect(normalizeText(s)).toBe(reference(s));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('repeatsName with a bounded strip', () => {
  const GENERIC = new Set(['mcp', 'server', 'the', 'a', 'an', 'model', 'context', 'protocol', 'for']);
  const strip = (n: string): string =>
    n
      .split(' ')
      .filter((w) => w && !GENERIC.has(w))
      .join(' ');
  const reference = (desc: string, name: unknown): boolean => {
    if (typeof name !== 'string' || name.trim() === '' || desc.length > 2000 || name.length > 2000) return false;
    const d = normalizeText(desc);
    const candidates = new Set<string>([normalizeText(name)]);
    const slash = name.lastIndexOf('/');
    if (slash >= 0) candidates.add(normalizeText(name.slice(slash + 1)));
    const dotted = name
      .slice(slash + 1)
      .split('.')
      .pop();
    if (dotted) candidates.add(normalizeText(dotted));
    const dStripped = strip(d);
    for (const c of candidates) {
      if (!c) continue;
      if (d === c) return true;
      const cs = strip(c);
      if (cs && dStripped === cs) return true;
    }
    return false;
  };
  it('equals the reference on generated names and descriptions', () => {
    const word = fc.constantFrom(
      'mcp',
      'server',
      'the',
      'a',
      'an',
      'model',
      'context',
      'protocol',
      'for',
      'weather',
      'io.github',
      'acme',
      'Weather',
      'MCP',
      '',
    );
    const phrase = fc.tuple(fc.array(word, { maxLength: 8 }), fc.constantFrom(' ', '-', '.', '/', '  ')).map(([ws, sep]) => ws.join(sep));
    fc.assert(
      fc.property(phrase, fc.oneof(phrase, fc.string(), fc.constant(42)), (desc, name) => {
        expect(repeatsName(desc, name)).toBe(reference(desc, name));
      }),
      { numRuns: 20_000 },
    );
    expect(repeatsName('The Weather MCP server', 'io.github.acme/weather')).toBe(true);
    expect(repeatsName('Weather forecasts for any city, by the hour', 'io.github.acme/weather')).toBe(false);
  });
});

describe('parseIp refuses host names before ipaddr.js', () => {
  it('reads every IPv4 spelling ipaddr.js reads, and no host name', () => {
    for (const t of ['127.0.0.1', '0x7f.1', '0177.0.0.1', '2130706433', '10.1', '1.2.3', '0XA.0.0.1']) {
      expect(parseIp(t)?.toString(), t).toBe(ipaddr.IPv4.parse(t).toString());
    }
    for (const t of ['example.com', 'localhost', 'face.b00c', 'deadbeef.x']) expect(parseIp(t), t).toBeNull();
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('0', '1', '7', '9', 'a', 'f', 'x', 'X', '.', 'g', '-', ' ') }), (t) => {
        const want = ipaddr.IPv4.isValid(t.trim()) ? ipaddr.IPv4.parse(t.trim()).toString() : null;
        expect(parseIp(t)?.toString() ?? null).toBe(want);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('json-util fast paths', () => {
  it('escapePointer and sanitize answer as their plain forms', () => {
    const unit = fc.constantFrom('~', '/', 'a', '\u0000', '\u200b', '😀', 'é', ' ');
    const sanitizeRef = (text: string, max: number): string => {
      const t = (text.length > max * 4 ? text.slice(0, max * 4) : text).replace(
        // eslint-disable-next-line no-control-regex -- the reference sanitizer replaces control characters
        /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g,
        '\uFFFD',
      );
      const chars = Array.from(t);
      return chars.length > max ? chars.slice(0, max).join('') + '…' : chars.join('');
    };
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 200 }), fc.integer({ min: 1, max: 120 }), (s, max) => {
        expect(escapePointer(s)).toBe(s.replace(/~/g, '~0').replace(/\//g, '~1'));
        expect(sanitize(s, max)).toBe(sanitizeRef(s, max));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('the one recorder, as verdicts read it', () => {
  it('lists judged and failed rules sorted, counts findings past the cap, and fails as severities say', () => {
    const suite = RULES.filter((r) => r.suite === 'mcp');
    const rule = fc.constantFrom(...suite);
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 20 }), fc.array(rule, { maxLength: 8 }), (passed, failed) => {
        const rec = verdictRecorder(CATALOGUE);
        rec.pass(...passed);
        for (const r of failed) flag(rec, r, 'document', '', 'm');
        expect(rec.evaluated()).toEqual([...new Set([...passed, ...failed].map((r) => r.id))].sort());
        expect(rec.flagged()).toEqual([...new Set(failed.map((r) => r.id))].sort());
        expect(rec.hasFailure()).toBe(failed.some((r) => r.severity === 'fail'));
        expect(rec.findings.map((f) => f.ruleId)).toEqual(failed.map((r) => r.id));
      }),
      { numRuns: 2000 },
    );
    const rec = verdictRecorder(CATALOGUE);
    const q = CATALOGUE.get('MCP-Q-002')!;
    for (let i = 0; i < 250; i++) flag(rec, q, 'document', '', 'm');
    expect(rec.findings).toHaveLength(200);
    expect(rec.omitted).toBe(50);
    expect(rec.unlistedRules()).toEqual(['MCP-Q-002']);
    expect(() => verdictRecorder(CATALOGUE).pass({ ...q })).toThrow();
  });
});

describe('MCP text rules fast paths', () => {
  it('normalizeText on ASCII text equals the Unicode-class regex', () => {
    const unit = fc.constantFrom(' ', '.', '/', '-', '_', 'A', 'z', 'Q', '0', '9', '\t', ':', '@', '`', '[', '{');
    const reference = (s: string): string =>
      s
        .toLowerCase()
        .normalize('NFKC')
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), (s) => {
        expect(normalizeText(s)).toBe(reference(s));
      }),
      { numRuns: 10_000 },
    );
  });

  it('isPlaceholderDescription answers as the set and every pattern tried in turn', () => {
    const reference = (desc: string): boolean => {
      if (desc.length > 2000) return false;
      if (RAW_TEMPLATE_MARKERS.test(desc)) return true;
      const n = normalizeText(desc);
      return PLACEHOLDERS.has(n) || PLACEHOLDER_PATTERNS.some((re) => re.test(n));
    };
    const word = fc.constantFrom(
      'description',
      'your',
      'server',
      'goes',
      'here',
      'add',
      'a',
      'short',
      'todo',
      'lorem',
      'ipsum',
      'TBD',
      'mcp',
      'x',
      'descriptions',
      'placeholder',
      'write',
      'n/a',
      '<your',
      '{{x}}',
      'hello world',
    );
    const phrase = fc.tuple(fc.array(word, { maxLength: 7 }), fc.constantFrom(' ', '-', ': ', '  ')).map(([ws, sep]) => ws.join(sep));
    fc.assert(
      fc.property(fc.oneof(phrase, fc.string()), (d) => {
        expect(isPlaceholderDescription(d)).toBe(reference(d));
      }),
      { numRuns: 10_000 },
    );
    for (const p of PLACEHOLDERS) expect(isPlaceholderDescription(p)).toBe(true);
  });

  it('repeatsName strips generic words only, near misses kept', () => {
    const GENERIC = new Set(['mcp', 'server', 'the', 'a', 'an', 'model', 'context', 'protocol', 'for']);
    const strip = (n: string): string =>
      n
        .split(' ')
        .filter((w) => w && !GENERIC.has(w))
        .join(' ');
    const reference = (desc: string, name: string): boolean => {
      if (name.trim() === '' || desc.length > 2000 || name.length > 2000) return false;
      const d = normalizeText(desc);
      const slash = name.lastIndexOf('/');
      const cands = [
        normalizeText(name),
        ...(slash >= 0 ? [normalizeText(name.slice(slash + 1))] : []),
        normalizeText(
          name
            .slice(slash + 1)
            .split('.')
            .pop() ?? '',
        ),
      ];
      return cands.some((c) => c !== '' && (d === c || (strip(c) !== '' && strip(d) === strip(c))));
    };
    const word = fc.constantFrom(
      'mcp',
      'server',
      'the',
      'a',
      'an',
      'model',
      'context',
      'protocol',
      'for',
      'ab',
      'ann',
      'models',
      'fo',
      'thex',
      'mcps',
      'protocols',
      'contexts',
      'servers',
      'weather',
      'x',
    );
    const phrase = fc.tuple(fc.array(word, { maxLength: 6 }), fc.constantFrom(' ', '-', '.', '/')).map(([ws, sep]) => ws.join(sep));
    fc.assert(
      fc.property(phrase, phrase, (desc, name) => {
        expect(repeatsName(desc, name)).toBe(reference(desc, name));
      }),
      { numRuns: 20_000 },
    );
  });
});
