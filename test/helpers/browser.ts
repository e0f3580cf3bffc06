import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

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
