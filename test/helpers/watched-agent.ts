/**
 * For end-to-end tests of a platform watching one agent (test/e2e/watchers.test.ts,
 * test/e2e/disputes.test.ts): the agent as a real MCP server from the SDK on a chosen loopback
 * port (so it can stop and come back on the same URL), one cycle of `run` (crawl, then the daily
 * run), and a reader of Atom feeds.
 */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { xml2js, type Element } from 'xml-js';
import type { DailyRunReport } from '../../src/runtime/daily.js';
import type { Platform } from '../../src/runtime/platform.js';
import { runDailyCycles } from '../../src/runtime/roles.js';
import { mcpStatelessApp } from './peers.js';

export interface WatchedMcpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The SDK's stateless Streamable HTTP server on a chosen port (0: any), so it can stop and come back on the same URL. */
export async function startMcpServerOn(port: number): Promise<WatchedMcpServer> {
  const app = mcpStatelessApp();
  const http = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const sockets = new Set<Socket>();
  http.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const bound = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        http.close(() => r());
      }),
  };
}

/**
 * One cycle of `run` on the platform: crawl the sources, then the daily run (schedule, probe,
 * judge). A failed cycle, or a crawl of a source that did not complete, throws.
 */
export async function dailyCycle(platform: Platform, sources: readonly string[]): Promise<DailyRunReport> {
  let report: DailyRunReport | null = null;
  let error: unknown = null;
  let crawled: Array<[string, boolean]> = [];
  await runDailyCycles(platform, null, null, {
    sources: [...sources],
    onCrawl: (s) => (crawled = s.map((x) => [x.source, x.complete])),
    onReport: (r) => (report = r),
    onError: (err) => (error = err),
  });
  if (error) throw error;
  const incomplete = sources.filter((s) => !crawled.some(([source, complete]) => source === s && complete));
  if (incomplete.length > 0 || crawled.length !== sources.length) throw new Error(`the crawl did not complete: ${JSON.stringify(crawled)}`);
  if (!report) throw new Error('the daily run reported nothing');
  return report;
}

// ---- Atom ----

const parseXml = (xml: string): Element => xml2js(xml, { compact: false }) as Element;
const kids = (e: Element | undefined, name: string): Element[] => (e?.elements ?? []).filter((c) => c.name === name);
const text = (e: Element | undefined): string =>
  (e?.elements ?? []).map((c) => (c.type === 'text' || c.type === 'cdata' ? String(c.text ?? c.cdata) : text(c))).join('');

export interface AtomEntry {
  id: string;
  title: string;
  /** The content's text as a reader gets it (for type="html", the HTML, unescaped once). */
  content: string;
}

/** The entries of an Atom feed, in document order; throws when the document is not an Atom feed. */
export function atomEntries(xml: string): AtomEntry[] {
  const feed = kids(parseXml(xml), 'feed')[0];
  if (!feed) throw new Error(`not an Atom <feed>: ${xml.slice(0, 200)}`);
  return kids(feed, 'entry').map((e) => ({
    id: text(kids(e, 'id')[0]),
    title: text(kids(e, 'title')[0]),
    content: text(kids(e, 'content')[0]),
  }));
}

/** The entry ids of an Atom feed, in document order. */
export const atomEntryIds = (xml: string): string[] => atomEntries(xml).map((e) => e.id);

/** An agent change's entry id in the feeds (src/api/feeds.ts). */
export const changeEntryId = (changeId: string): string => `tag:veronikai.invalid,2026:change:${changeId}`;
