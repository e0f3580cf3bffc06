import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { buildApi } from '../../src/api/server.js';

/**
 * Debian's chromium, headless, driven by puppeteer-core: the browser tests' one way to open a page
 * with every request recorded (any origin but the test server's refused), every console error and
 * page error kept, and every Content-Security-Policy violation heard.
 */

export const CHROMIUM = process.env.VERONIKAI_CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Says why a browser test file is skipped (CI installs chromium). */
export function warnNoChromium(what: string): void {
  if (!HAVE_CHROMIUM) console.warn(`${what} skipped: no chromium at ${CHROMIUM} (apt-get install chromium, or set VERONIKAI_CHROMIUM)`);
}

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--headless=new'] });
}

export interface RecordedPage {
  page: Page;
  /** Every URL the page asked for. */
  requests: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  /** CSP violations so far (directive and blocked URI). */
  violations(): Promise<string[]>;
}

/** A new page that records what it asks for and refuses every origin but `origin`. */
export async function recordedPage(browser: Browser, origin: string): Promise<RecordedPage> {
  const page = await browser.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    requests.push(req.url());
    if (req.url().startsWith('data:') || new URL(req.url()).origin === origin) void req.continue();
    else void req.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${String(e)}`));
  // Injected by the DevTools protocol, so the page's own policy does not apply to it.
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const w = window as unknown as { violations?: string[] };
      (w.violations ??= []).push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return {
    page,
    requests,
    errors,
    violations: () => page.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []),
  };
}

/** The API over a warehouse on a free loopback port, and one browser to open its pages. */
export interface BrowsedApi {
  origin: string;
  browser: Browser;
  /** Closes the browser, then the API. */
  close(): Promise<void>;
}

export async function browseApi(warehouse: Parameters<typeof buildApi>[0]['warehouse']): Promise<BrowsedApi> {
  const app = buildApi({ warehouse });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const browser = await launchChromium().catch(async (err: unknown) => {
    await app.close();
    throw err;
  });
  return {
    origin,
    browser,
    close: async () => {
      await browser.close();
      await app.close();
    },
  };
}
