import { xml2js, type Element } from 'xml-js';
import { describe, expect, it } from 'vitest';
import {
  BADGE_TEXT_MAX,
  COLORS,
  conformanceBadge,
  escapeXml,
  etagMatches,
  formatUptime,
  renderBadge,
  strongEtag,
  textWidth,
  uptimeBadge,
  uptimeColor,
} from '../../src/api/badge.js';

/** The SVG parsed back (xml-js reads with sax in strict mode: a malformed document throws). */
const parse = (svg: string): Element => xml2js(svg, { compact: false }) as Element;
const all = (e: Element, name: string): Element[] => [...(e.name === name ? [e] : []), ...(e.elements ?? []).flatMap((c) => all(c, name))];
const texts = (e: Element): string => (e.elements ?? []).map((c) => (c.type === 'text' ? String(c.text) : texts(c))).join('');

describe('badge widths', () => {
  it('measures Verdana 11 px from the table: wide letters wider, every ASCII letter counted', () => {
    expect(textWidth('')).toBe(0);
    expect(textWidth('i')).toBeCloseTo(3.02, 2);
    expect(textWidth('W')).toBeCloseTo(10.88, 2);
    expect(textWidth('mmmm')).toBeGreaterThan(textWidth('iiii') * 3);
    expect(textWidth('uptime 30d')).toBeCloseTo(6.96 + 6.85 + 4.33 + 3.02 + 10.7 + 6.55 + 3.87 + 6.99 + 6.99 + 6.85, 2);
    // outside the table: as wide as the widest letter, never zero
    expect(textWidth('é')).toBe(11);
    expect(textWidth('😀')).toBe(11);
  });

  it('sizes the boxes from the texts: odd text widths, 5 px padding each side, total = label + value', () => {
    const svg = parse(renderBadge({ label: 'uptime 30d', value: '99.50%', color: 'yellow' }));
    const root = all(svg, 'svg')[0]!;
    const rects = all(svg, 'rect').map((r) => r.attributes!);
    const labelBox = Number(rects[1]!.width);
    const valueBox = Number(rects[2]!.width);
    expect(Number(root.attributes!.width)).toBe(labelBox + valueBox);
    expect(Number(rects[2]!.x)).toBe(labelBox);
    const [labelShadow, label, valueShadow, value] = all(svg, 'text');
    const labelLen = Number(label!.attributes!.textLength) / 10;
    const valueLen = Number(value!.attributes!.textLength) / 10;
    expect(labelLen % 2).toBe(1);
    expect(valueLen % 2).toBe(1);
    expect(labelLen).toBeGreaterThanOrEqual(textWidth('uptime 30d'));
    expect(labelLen).toBeLessThan(textWidth('uptime 30d') + 2.01);
    expect(labelBox).toBe(labelLen + 10);
    expect(valueBox).toBe(valueLen + 10);
    // centred in their boxes, shadow one pixel lower
    expect(Number(label!.attributes!.x)).toBe((labelBox / 2) * 10);
    expect(Number(value!.attributes!.x)).toBe((labelBox + valueBox / 2) * 10);
    expect(labelShadow!.attributes!.y).toBe('150');
    expect(valueShadow!.attributes!['fill-opacity']).toBe('.3');
    // a longer value makes a wider badge
    const wider = parse(renderBadge({ label: 'uptime 30d', value: '100.00% and more', color: 'yellow' }));
    expect(Number(all(wider, 'svg')[0]!.attributes!.width)).toBeGreaterThan(Number(root.attributes!.width));
  });

  it('has a title and an aria-label for screen readers, and a rounded clip', () => {
    const svg = parse(renderBadge({ label: 'conformance', value: 'pass', color: 'brightgreen' }));
    expect(texts(all(svg, 'title')[0]!)).toBe('conformance: pass');
    expect(all(svg, 'svg')[0]!.attributes!['aria-label']).toBe('conformance: pass');
    expect(all(svg, 'svg')[0]!.attributes!.role).toBe('img');
    expect(all(svg, 'clipPath')[0]!.elements![0]!.attributes!.rx).toBe('3');
    // The clip is the badge's own: ids differ between badges, so badges inlined into one page keep their shapes.
    const clipId = all(svg, 'clipPath')[0]!.attributes!.id;
    expect(all(svg, 'g')[0]!.attributes!['clip-path']).toBe(`url(#${clipId})`);
    expect(all(parse(renderBadge({ label: 'conformance', value: 'fail', color: 'red' })), 'clipPath')[0]!.attributes!.id).not.toBe(clipId);
  });

  it('cuts an over-long text with an ellipsis', () => {
    const svg = parse(renderBadge({ label: 'x'.repeat(500), value: 'ok', color: 'green' }));
    const label = texts(all(svg, 'text')[1]!);
    expect([...label]).toHaveLength(BADGE_TEXT_MAX);
    expect(label.endsWith('…')).toBe(true);
  });
});

describe('badge colours and values', () => {
  it('colours uptime as shields does', () => {
    expect(uptimeColor(1)).toBe('brightgreen');
    expect(uptimeColor(0.99)).toBe('brightgreen');
    expect(uptimeColor(0.9899)).toBe('green');
    expect(uptimeColor(0.97)).toBe('green');
    expect(uptimeColor(0.9699)).toBe('yellow');
    expect(uptimeColor(0.95)).toBe('yellow');
    expect(uptimeColor(0.9499)).toBe('orange');
    expect(uptimeColor(0.9)).toBe('orange');
    expect(uptimeColor(0.8999)).toBe('red');
    expect(uptimeColor(0)).toBe('red');
  });

  it('writes uptime with two decimals, never 100 % unless it is', () => {
    expect(formatUptime(1)).toBe('100%');
    expect(formatUptime(0.99996)).toBe('99.99%');
    expect(formatUptime(0.975)).toBe('97.50%');
    expect(formatUptime(0.123456)).toBe('12.34%');
    expect(formatUptime(0)).toBe('0.00%');
  });

  it('gives each state its badge; nothing to show is a grey "unknown"', () => {
    expect(uptimeBadge(0.995)).toEqual({ label: 'uptime 30d', value: '99.50%', color: 'brightgreen' });
    expect(uptimeBadge(null)).toEqual({ label: 'uptime 30d', value: 'unknown', color: 'lightgrey' });
    expect(uptimeBadge(Number.NaN).value).toBe('unknown');
    expect(conformanceBadge('pass')).toEqual({ label: 'conformance', value: 'pass', color: 'brightgreen' });
    expect(conformanceBadge('fail')).toEqual({ label: 'conformance', value: 'fail', color: 'red' });
    expect(conformanceBadge('n/a')).toEqual({ label: 'conformance', value: 'n/a', color: 'lightgrey' });
    expect(conformanceBadge('unknown')).toEqual({ label: 'conformance', value: 'unknown', color: 'lightgrey' });
    expect(conformanceBadge(null).value).toBe('unknown');
    expect(conformanceBadge('<script>').value).toBe('unknown');
  });

  it('fills the value box with the colour', () => {
    for (const color of ['brightgreen', 'red', 'lightgrey'] as const) {
      const rects = all(parse(renderBadge({ label: 'a', value: 'b', color })), 'rect');
      expect(rects[2]!.attributes!.fill).toBe(COLORS[color]);
      expect(rects[1]!.attributes!.fill).toBe(COLORS.grey);
    }
  });
});

describe('badge escaping', () => {
  it('escapes every value, in text and in attributes', () => {
    expect(escapeXml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;');
    const hostile = `<script>alert(1)</script>"' ]]> &amp; \u0000\u0007\uFFFE\uD800x`;
    const svg = renderBadge({ label: hostile, value: hostile, color: 'red' });
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain(']]>');
    // It parses (strictly), and reads back as the text it was given, less what XML cannot carry.
    const doc = parse(svg);
    const expected = `<script>alert(1)</script>"' ]]> &amp; x`;
    expect(texts(all(doc, 'text')[1]!)).toBe(expected);
    expect(all(doc, 'svg')[0]!.attributes!['aria-label']).toBe(`${expected}: ${expected}`);
    expect(all(doc, 'script')).toHaveLength(0);
  });
});

describe('entity tags', () => {
  it('are strong, and equal exactly when the bytes are', () => {
    const a = strongEtag(renderBadge({ label: 'a', value: 'b', color: 'red' }));
    expect(a).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(strongEtag(renderBadge({ label: 'a', value: 'b', color: 'red' }))).toBe(a);
    expect(strongEtag(renderBadge({ label: 'a', value: 'b', color: 'green' }))).not.toBe(a);
  });

  it('match If-None-Match lists, weakly, and *', () => {
    expect(etagMatches(undefined, '"x"')).toBe(false);
    expect(etagMatches('"x"', '"x"')).toBe(true);
    expect(etagMatches('W/"x"', '"x"')).toBe(true);
    expect(etagMatches('"y", "x"', '"x"')).toBe(true);
    expect(etagMatches('*', '"x"')).toBe(true);
    expect(etagMatches('"y"', '"x"')).toBe(false);
    expect(etagMatches('x', '"x"')).toBe(false);
  });
});
