import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSyntheticAgents, finishSyntheticIndex } from '../api/synthetic-index.js';
import { browseApi, HAVE_CHROMIUM, recordedPage, warnNoChromium, type BrowsedApi } from '../helpers/browser.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

/**
 * The dashboard's live-typing script (src/api/dashboard.ts) in a real browser over the real API:
 * typing asks GET /search and renders its hits with the matched words marked, a typo still finds,
 * clearing the box brings back the list in name order, the address follows the words, and the page
 * asks nothing of any other origin, logs no error and breaks no Content-Security-Policy rule.
 */

warnNoChromium('test/browser/live-search.test.ts');

const CV = 'browser-live-search-checker';
const AGENTS = 300;

describe.skipIf(!HAVE_CHROMIUM)('live search in a real browser', () => {
  let t: TestWarehouse;
  let api: BrowsedApi | undefined;
  let origin = '';
  let browser: Browser;

  beforeAll(async () => {
    t = await withWarehouse('browser-live-search');
    await addSyntheticAgents(t.wh, { from: 0, to: AGENTS, days: 3, checkerVersion: CV });
    await finishSyntheticIndex(t.wh, { agents: AGENTS, days: 3, checkerVersion: CV });
    api = await browseApi(t.wh);
    ({ origin, browser } = api);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await t?.close();
  });

  it('renders ranked hits as the words are typed, and the list again when they are cleared', async () => {
    const v = await recordedPage(browser, origin);
    const { page } = v;
    expect((await page.goto(`${origin}/`, { waitUntil: 'networkidle0' }))?.status()).toBe(200);
    const rows = () =>
      page.$$eval('#agents tr', (trs) =>
        trs.map((tr) => ({
          name: tr.querySelector('a')?.textContent ?? '',
          marks: [...tr.querySelectorAll('mark')].map((m) => m.textContent),
        })),
      );
    const summary = () => page.$eval('#summary', (p) => p.textContent ?? '').catch(() => null);

    await page.type('#q', 'weather agent 10', { delay: 20 });
    await page.waitForFunction(() => document.querySelector('#agents tr a')?.textContent === 'Weather Agent 10', { timeout: 15_000 });
    const hits = await rows();
    expect(hits[0]!.marks).toEqual(expect.arrayContaining(['Weather', 'Agent', '10']));
    expect(hits.every((h) => h.marks.length > 0)).toBe(true);
    expect(await summary()).toMatch(/^\d+ match(es)?, by relevance/);
    expect(new URL(page.url()).searchParams.get('q')).toBe('weather agent 10');
    expect(await page.$eval('#status', (s) => s.textContent)).toBe('');

    // One typo in a long word still finds its agents.
    await page.$eval('#q', (el) => ((el as HTMLInputElement).value = ''));
    await page.type('#q', 'weathr', { delay: 20 });
    // The earlier hits are replaced once every word marked is the one the typo found.
    // (A loop, not callbacks: the page runs this function as its source text.)
    await page.waitForFunction(
      () => {
        const marks = document.querySelectorAll('#agents mark');
        for (const m of marks) if ((m.textContent ?? '').toLowerCase() !== 'weather') return false;
        return marks.length > 0;
      },
      { timeout: 15_000 },
    );
    expect((await rows()).every((h) => h.name.startsWith('Weather Agent'))).toBe(true);

    // Cleared: the list in name order, no summary, no words in the address.
    await page.focus('#q');
    for (let i = 0; i < 'weathr'.length; i++) await page.keyboard.press('Backspace');
    await page.waitForFunction(() => document.querySelector('#agents')?.closest('table')?.tHead?.textContent?.startsWith('name'), {
      timeout: 15_000,
    });
    expect((await rows()).length).toBeGreaterThan(10);
    expect(await summary()).toBeNull();
    expect(new URL(page.url()).searchParams.has('q')).toBe(false);

    expect(v.requests.some((u) => new URL(u).pathname === '/search')).toBe(true);
    for (const url of v.requests) expect(url.startsWith('data:') || new URL(url).origin === origin, url).toBe(true);
    expect(v.errors).toEqual([]);
    expect(await v.violations()).toEqual([]);
    await page.close();
  }, 90_000);
});
