import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonBytes, hashInputs, hashTextInputs, sha256Hex } from '../../src/conformance/canonical-json.js';
import { parseIp } from '../../src/conformance/ip-ranges.js';
import { RULES } from '../../src/conformance/catalogue.js';
import { FindingSink, ruleMask, sortedRuleIds } from '../../src/conformance/findings.js';
import { escapeJsonText, escapeJsonTextFramed, MAX_CHARS, MIN_CHARS } from '../../src/conformance/json-escape.js';
import { escapePointer, sanitize } from '../../src/conformance/json-util.js';
import { isPlaceholderDescription, normalizeText, PLACEHOLDER_PATTERNS, PLACEHOLDERS, RAW_TEMPLATE_MARKERS, repeatsName } from '../../src/conformance/mcp-quality.js';
import ipaddr from 'ipaddr.js';

/**
 * The engine's fast paths (issue 15, conformance benchmark) must answer exactly as the plain
 * code they replaced: each is held here to that code, kept as the reference.
 */

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('canonical JSON written straight to bytes', () => {
  it('is the UTF-8 of canonicalJson on arbitrary values, lone surrogates and all', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udc00', '😀', 'é', 'a') }));
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
        expect(Buffer.from(canonicalJsonBytes(v)).equals(utf8(canonicalJson(v)))).toBe(true);
        expect(hashInputs(v)).toBe('sha256:' + sha256Hex(utf8(canonicalJson(v))));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees on long texts, growing its buffer, and fails as canonicalJson does', () => {
    const long = 'x"\\\n\u0001é😀'.repeat(50_000);
    expect(Buffer.from(canonicalJsonBytes({ kind: 'k', text: long })).equals(utf8(canonicalJson({ kind: 'k', text: long })))).toBe(true);
    expect(hashInputs({ a: 1 })).toBe('sha256:' + sha256Hex('{"a":1}'));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => hashInputs(cyclic)).toThrow(TypeError);
    expect(() => hashInputs({ n: 1n })).toThrow(TypeError);
    // A failed call leaves nothing behind for the next.
    expect(hashInputs([1, 'a'])).toBe('sha256:' + sha256Hex('[1,"a"]'));
  });
});

describe('normalizeText scan', () => {
  const reference = (s: string): string => s.toLowerCase().normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  it('equals the Unicode-class regex it replaced', () => {
    const unit = fc.constantFrom('Ａ', 'ﬁ', '①', 'İ', 'ẞ', '\u0301', '\ud800', '\udc00', '😀', '٣', ' ', '-', '_', 'a', 'Z', '9', '\t', '—');
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
  const strip = (n: string): string => n.split(' ').filter((w) => w && !GENERIC.has(w)).join(' ');
  const reference = (desc: string, name: unknown): boolean => {
    if (typeof name !== 'string' || name.trim() === '' || desc.length > 2000 || name.length > 2000) return false;
    const d = normalizeText(desc);
    const candidates = new Set<string>([normalizeText(name)]);
    const slash = name.lastIndexOf('/');
    if (slash >= 0) candidates.add(normalizeText(name.slice(slash + 1)));
    const dotted = name.slice(slash + 1).split('.').pop();
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
    const word = fc.constantFrom('mcp', 'server', 'the', 'a', 'an', 'model', 'context', 'protocol', 'for', 'weather', 'io.github', 'acme', 'Weather', 'MCP', '');
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

describe('long texts escaped in WebAssembly (json-escape.ts)', () => {
  const unit = fc.constantFrom('"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', ' ', '\u007f', '\u0080', 'é', '\u2028', '€', '😀', 'a', 'Z', '{', '/');
  const quoted = (s: string): Buffer => Buffer.from(JSON.stringify(s).slice(1, -1), 'utf8');

  it('writes the bytes JSON.stringify writes between its quotes', () => {
    fc.assert(
      fc.property(fc.string({ unit, minLength: MIN_CHARS, maxLength: 400 }), (s) => {
        const got = escapeJsonText(s);
        expect(got).not.toBeNull();
        expect(Buffer.from(got!).equals(quoted(s))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves short, over-long and not well-formed text to the JS writer, and grows its memory', () => {
    expect(escapeJsonText('x'.repeat(MIN_CHARS - 1))).toBeNull();
    expect(escapeJsonText('x'.repeat(MAX_CHARS + 1))).toBeNull();
    expect(escapeJsonText('a'.repeat(100) + '\ud800' + 'b')).toBeNull();
    const big = 'x"\\\n\u0001é😀'.repeat(Math.floor(MAX_CHARS / 8));
    expect(Buffer.from(escapeJsonText(big)!).equals(quoted(big))).toBe(true);
    const after = '"tail"'.repeat(20);
    expect(Buffer.from(escapeJsonText(after)!).equals(quoted(after))).toBe(true);
  });
});

describe('sorted rule IDs by catalogue rank', () => {
  it('equals the string sort, IDs outside the catalogue included', () => {
    const ids = fc.constantFrom(...RULES.map((r) => r.id), 'NOT-A-RULE', 'A2A-CARD-999', '');
    fc.assert(
      fc.property(fc.array(ids, { maxLength: 30 }), (list) => {
        const set = new Set(list);
        expect(sortedRuleIds(set)).toEqual([...set].sort());
      }),
      { numRuns: 2000 },
    );
  });
});

describe('json-util fast paths', () => {
  it('escapePointer and sanitize answer as their plain forms', () => {
    const unit = fc.constantFrom('~', '/', 'a', '\u0000', '\u200b', '😀', 'é', ' ');
    const sanitizeRef = (text: string, max: number): string => {
      const t = (text.length > max * 4 ? text.slice(0, max * 4) : text).replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '\uFFFD');
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

describe('inputs hash of a document given as text (hashTextInputs)', () => {
  const unit = fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udc00', '😀', 'é', 'a', '{', ' ');
  const text = fc.oneof(fc.string({ unit, maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 120 }), fc.string({ maxLength: 300 }));
  it('equals hashInputs of the { kind, text[, validUtf8: false] } object, short and long texts alike', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('a2a-card-text', 'mcp-server-json-text'), text), text, fc.boolean(), (kind, t, notUtf8) => {
        const value = notUtf8 ? { kind, text: t, validUtf8: false } : { kind, text: t };
        expect(hashTextInputs(kind, t, notUtf8)).toBe(hashInputs(value));
      }),
      { numRuns: 5000 },
    );
    const long = 'x"\\\n\u0001é😀'.repeat(50_000);
    expect(hashTextInputs('k', long, false)).toBe(hashInputs({ kind: 'k', text: long }));
    expect(hashTextInputs('k', long + '\ud800', true)).toBe(hashInputs({ kind: 'k', text: long + '\ud800', validUtf8: false }));
  });

  it('frames the escaped text with the given bytes', () => {
    const pre = Buffer.from('{"kind":"k","text":"');
    const post = Buffer.from('"}');
    fc.assert(
      fc.property(fc.string({ unit, minLength: MIN_CHARS, maxLength: 300 }), (s) => {
        // Copied: each view is valid only until the next call.
        const view = escapeJsonText(s);
        const plain = view === null ? null : Buffer.from(view);
        const framed = escapeJsonTextFramed(s, pre, post);
        if (plain === null) expect(framed).toBeNull();
        else expect(Buffer.from(framed!).equals(Buffer.concat([pre, plain, post]))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('FindingSink rule sets as rank bits', () => {
  it('lists evaluated and flagged rules as the string sort of the sets, and fails as severities say', () => {
    const id = fc.constantFrom(...RULES.map((r) => r.id));
    fc.assert(
      fc.property(fc.array(id, { maxLength: 20 }), fc.array(id, { maxLength: 8 }), fc.array(id, { maxLength: 8 }), (evaluated, masked, flagged) => {
        const sink = new FindingSink();
        sink.evaluate(...evaluated);
        sink.evaluateMask(ruleMask(...masked));
        for (const f of flagged) sink.add(f, 'document', '', 'm');
        expect(sink.evaluatedRules()).toEqual([...new Set([...evaluated, ...masked, ...flagged])].sort());
        expect(sink.flaggedRules()).toEqual([...new Set(flagged)].sort());
        expect(sink.hasFailure()).toBe(flagged.some((f) => RULES.find((r) => r.id === f)!.severity === 'fail'));
        for (const r of RULES) expect(sink.has(r.id)).toBe(flagged.includes(r.id));
      }),
      { numRuns: 2000 },
    );
    const sink = new FindingSink();
    sink.evaluate('NOT-A-RULE', 'A2A-CARD-003', 'AAA');
    expect(sink.evaluatedRules()).toEqual(['A2A-CARD-003', 'AAA', 'NOT-A-RULE']);
    expect(() => sink.add('NOT-A-RULE', 'document', '', 'm')).toThrow();
    expect(() => ruleMask('NOT-A-RULE')).toThrow();
  });
});

describe('MCP text rules fast paths', () => {
  it('normalizeText on ASCII text equals the Unicode-class regex', () => {
    const unit = fc.constantFrom(' ', '.', '/', '-', '_', 'A', 'z', 'Q', '0', '9', '\t', ':', '@', '`', '[', '{');
    const reference = (s: string): string => s.toLowerCase().normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    fc.assert(fc.property(fc.string({ unit, maxLength: 60 }), (s) => {
      expect(normalizeText(s)).toBe(reference(s));
    }), { numRuns: 10_000 });
  });

  it('isPlaceholderDescription answers as the set and every pattern tried in turn', () => {
    const reference = (desc: string): boolean => {
      if (desc.length > 2000) return false;
      if (RAW_TEMPLATE_MARKERS.test(desc)) return true;
      const n = normalizeText(desc);
      return PLACEHOLDERS.has(n) || PLACEHOLDER_PATTERNS.some((re) => re.test(n));
    };
    const word = fc.constantFrom('description', 'your', 'server', 'goes', 'here', 'add', 'a', 'short', 'todo', 'lorem', 'ipsum', 'TBD', 'mcp', 'x', 'descriptions', 'placeholder', 'write', 'n/a', '<your', '{{x}}', 'hello world');
    const phrase = fc.tuple(fc.array(word, { maxLength: 7 }), fc.constantFrom(' ', '-', ': ', '  ')).map(([ws, sep]) => ws.join(sep));
    fc.assert(fc.property(fc.oneof(phrase, fc.string()), (d) => {
      expect(isPlaceholderDescription(d)).toBe(reference(d));
    }), { numRuns: 10_000 });
    for (const p of PLACEHOLDERS) expect(isPlaceholderDescription(p)).toBe(true);
  });

  it('repeatsName strips generic words only, near misses kept', () => {
    const GENERIC = new Set(['mcp', 'server', 'the', 'a', 'an', 'model', 'context', 'protocol', 'for']);
    const strip = (n: string): string => n.split(' ').filter((w) => w && !GENERIC.has(w)).join(' ');
    const reference = (desc: string, name: string): boolean => {
      if (name.trim() === '' || desc.length > 2000 || name.length > 2000) return false;
      const d = normalizeText(desc);
      const slash = name.lastIndexOf('/');
      const cands = [normalizeText(name), ...(slash >= 0 ? [normalizeText(name.slice(slash + 1))] : []), normalizeText(name.slice(slash + 1).split('.').pop() ?? '')];
      return cands.some((c) => c !== '' && (d === c || (strip(c) !== '' && strip(d) === strip(c))));
    };
    const word = fc.constantFrom('mcp', 'server', 'the', 'a', 'an', 'model', 'context', 'protocol', 'for', 'ab', 'ann', 'models', 'fo', 'thex', 'mcps', 'protocols', 'contexts', 'servers', 'weather', 'x');
    const phrase = fc.tuple(fc.array(word, { maxLength: 6 }), fc.constantFrom(' ', '-', '.', '/')).map(([ws, sep]) => ws.join(sep));
    fc.assert(fc.property(phrase, phrase, (desc, name) => {
      expect(repeatsName(desc, name)).toBe(reference(desc, name));
    }), { numRuns: 20_000 });
  });
});
