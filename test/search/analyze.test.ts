import { describe, expect, it } from 'vitest';
import { fold, highlight, oneEditTerms, queryWords, termOf, terms, tokens } from '../../src/warehouse/search/analyze.js';

describe('search text analysis', () => {
  it('folds case and accents, drops stop words and stems English words', () => {
    expect(fold('Ünïcode CAFÉ')).toBe('unicode cafe');
    expect(terms('The Café querying PostgreSQL databases, and servers')).toEqual(['cafe', 'queri', 'postgresql', 'databas', 'server']);
    // Digits and short words are kept as they are.
    expect(terms('x402 v2 AI')).toEqual(['x402', 'v2', 'ai']);
  });

  it('keeps the original offsets of every word', () => {
    const text = 'Größe of Maps';
    const toks = tokens(text);
    expect(toks.map((t) => text.slice(t.start, t.end))).toEqual(['Größe', 'of', 'Maps']);
    expect(toks.map((t) => t.term)).toEqual(['gross', null, 'map']);
    expect(toks.map((t) => t.position)).toEqual([0, -1, 1]);
  });

  it('reads a query as the index does: the last word typed is a prefix, long words forgive a typo', () => {
    const q = queryWords('an MCP server to query a Postgres datab');
    expect(q.map((w) => w.term)).toEqual(['mcp', 'server', 'queri', 'postgr', 'datab']);
    expect(q.map((w) => w.prefix)).toEqual([false, false, false, false, true]);
    expect(q.map((w) => w.typo)).toEqual([false, true, true, true, true]);
    // A finished word (a space after it) is not a prefix.
    expect(queryWords('weather ').at(-1)?.prefix).toBe(false);
    // A query of stop words only still searches for them.
    expect(queryWords('the').map((w) => w.term)).toEqual(['the']);
  });

  it('lists the one-edit neighbours of a word, swaps first', () => {
    const [swaps, replaced, dropped, added] = oneEditTerms('postgers');
    expect(swaps).toContain(termOf('postgres'));
    expect(replaced).toContain(termOf('postgees'));
    expect(dropped).toContain(termOf('potgers'));
    expect(added).toContain(termOf('postigers'));
    expect(oneEditTerms('forcast').flat()).toContain('forecast');
    expect(oneEditTerms('weather').flat()).not.toContain('weather');
  });

  it('marks the words whose terms matched, leaving the rest of the text as it is', () => {
    const parts = highlight('Query PostgreSQL <databases>', new Set(['databas', 'queri']));
    expect(parts).toEqual([
      { text: 'Query', hit: true },
      { text: ' PostgreSQL <', hit: false },
      { text: 'databases', hit: true },
      { text: '>', hit: false },
    ]);
    expect(parts.map((p) => p.text).join('')).toBe('Query PostgreSQL <databases>');
  });
});
