import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadOptOutFile } from './processors/listings-to-agents.js';

/** A configuration or command-line mistake: reported in one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Configuration comes from the environment (VERONIKAI_*) and is overridden by flags.
 * Every value is validated here, once, so a bad value stops the process at start
 * with a message that names the setting.
 */
export interface Config {
  /** Where local state lives: embedded warehouse data, broker storage, signing keys. */
  dataDir: string;
  /** Where Maven-resolved broker jars are cached (outside the repository). */
  cacheDir: string;
  /** Kafka bootstrap servers; empty means "start the local broker". */
  kafkaBrokers: string[];
  /** Warehouse: `embedded` (chdb in dataDir) or an http(s) URL of a ClickHouse server. */
  warehouse: { kind: 'embedded'; path: string } | { kind: 'server'; url: string; database: string };
  apiHost: string;
  apiPort: number;
  /** Contact address carried in the crawler's User-Agent. */
  contact: string;
  /** Per-source base URL overrides, e.g. mcp-registry=http://127.0.0.1:8080. */
  sourceUrls: Record<string, string>;
  /** Per-source switches, page budgets and pacing (absent: every source on, its own defaults). */
  sources?: SourceSettings;
  /** Owners' opt-out list (JSON file of {match, mode, reason}); absent: none. */
  optOutFile?: string | null;
}

/** Per-source crawl settings; source names are checked against the known sources by the commands. */
export interface SourceSettings {
  /** Sources turned off (VERONIKAI_SOURCES_DISABLED / --disable-source): not read at all. */
  disabled: string[];
  /** Sources whose terms forbid crawling (VERONIKAI_SOURCES_TERMS_FORBID / --terms-forbid): skipped, recorded. */
  termsForbidden: string[];
  /** List pages per run by source; key "*" for every source (VERONIKAI_SOURCE_MAX_PAGES / --max-pages NAME=N). */
  maxPages: Record<string, number>;
  /** Least delay between two requests by source, ms; key "*" for every source (VERONIKAI_SOURCE_PAGE_DELAY / --page-delay NAME=DURATION). */
  pageDelayMs: Record<string, number>;
}

export interface ConfigOverrides {
  dataDir?: string;
  cacheDir?: string;
  brokers?: string;
  warehouse?: string;
  host?: string;
  port?: string | number;
  contact?: string;
  sourceUrl?: string[];
  disableSource?: string[];
  termsForbid?: string[];
  maxPages?: string[];
  pageDelay?: string[];
  optOutFile?: string;
}

export function parsePort(value: string | number, setting: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new UsageError(`${setting} must be a port number between 0 and 65535, got "${value}"`);
  }
  return n;
}

export function parseHttpUrl(value: string, setting: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${setting} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${setting} must use http or https, got "${url.protocol}"`);
  }
  return url;
}

/** Parses `NAME=URL` pairs (repeatable flag or comma-separated env). */
export function parseSourceUrls(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--source-url expects NAME=URL, got "${pair}"`);
    const name = pair.slice(0, eq).trim();
    const url = parseHttpUrl(pair.slice(eq + 1).trim(), `--source-url ${name}`);
    out[name] = url.toString().replace(/\/$/, '');
  }
  return out;
}

const listOf = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Parses `NAME=VALUE` pairs into a map, each value through `parse`. */
function parsePairs<T>(pairs: readonly string[], setting: string, parse: (v: string, where: string) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`${setting} expects NAME=VALUE, got "${pair}"`);
    const name = pair.slice(0, eq).trim();
    out[name] = parse(pair.slice(eq + 1).trim(), `${setting} ${name}`);
  }
  return out;
}

function parsePageCount(v: string, where: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${where} must be a whole number of pages ≥ 1, got "${v}"`);
  return n;
}

function parseDelayMs(v: string, where: string): number {
  const m = /^(\d+)(ms|s|m)?$/.exec(v);
  if (!m) throw new UsageError(`${where} must be a delay such as 0, 250ms, 2s or 1m, got "${v}"`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm'];
}

/** Per-source switches, page budgets and pacing from the environment and flags (flags win). */
export function parseSourceSettings(flags: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): SourceSettings {
  return {
    disabled: [...new Set([...listOf(env.VERONIKAI_SOURCES_DISABLED), ...(flags.disableSource ?? [])])],
    termsForbidden: [...new Set([...listOf(env.VERONIKAI_SOURCES_TERMS_FORBID), ...(flags.termsForbid ?? [])])],
    maxPages: parsePairs([...listOf(env.VERONIKAI_SOURCE_MAX_PAGES), ...(flags.maxPages ?? [])], 'page budget (VERONIKAI_SOURCE_MAX_PAGES / --max-pages)', parsePageCount),
    pageDelayMs: parsePairs([...listOf(env.VERONIKAI_SOURCE_PAGE_DELAY), ...(flags.pageDelay ?? [])], 'page delay (VERONIKAI_SOURCE_PAGE_DELAY / --page-delay)', parseDelayMs),
  };
}

const CONTACT_RE = /^[^\s@<>()]+@[^\s@<>()]+\.[^\s@<>()]+$/;

export function loadConfig(flags: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(flags.dataDir ?? env.VERONIKAI_DATA_DIR ?? '.veronikai');
  const cacheDir = resolve(flags.cacheDir ?? env.VERONIKAI_CACHE_DIR ?? join(homedir(), '.cache', 'veronikai'));

  const brokersRaw = flags.brokers ?? env.VERONIKAI_KAFKA_BROKERS ?? '';
  const kafkaBrokers = brokersRaw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const b of kafkaBrokers) {
    if (!/^[^:\s]+:\d{1,5}$/.test(b)) throw new UsageError(`Kafka broker must be host:port, got "${b}"`);
  }

  const warehouseRaw = flags.warehouse ?? env.VERONIKAI_WAREHOUSE ?? 'embedded';
  let warehouse: Config['warehouse'];
  if (warehouseRaw === 'embedded') {
    warehouse = { kind: 'embedded', path: join(dataDir, 'warehouse') };
  } else {
    const url = parseHttpUrl(warehouseRaw, 'warehouse (VERONIKAI_WAREHOUSE / --warehouse)');
    warehouse = { kind: 'server', url: url.origin, database: env.VERONIKAI_CLICKHOUSE_DATABASE ?? 'veronikai' };
  }

  const apiPort = parsePort(flags.port ?? env.VERONIKAI_PORT ?? 8787, 'port (VERONIKAI_PORT / --port)');
  const apiHost = flags.host ?? env.VERONIKAI_HOST ?? '127.0.0.1';

  const contact = flags.contact ?? env.VERONIKAI_CONTACT ?? 'crawler@veronikai.invalid';
  if (!CONTACT_RE.test(contact)) {
    throw new UsageError(`contact (VERONIKAI_CONTACT / --contact) must be an e-mail address, got "${contact}"`);
  }

  const envPairs = (env.VERONIKAI_SOURCE_URLS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const sourceUrls = parseSourceUrls([...envPairs, ...(flags.sourceUrl ?? [])]);

  const sources = parseSourceSettings(flags, env);
  const optOutRaw = flags.optOutFile ?? env.VERONIKAI_OPT_OUT_FILE;
  const optOutFile = optOutRaw ? resolve(optOutRaw) : null;
  if (optOutFile) {
    try {
      loadOptOutFile(optOutFile);
    } catch (err) {
      throw new UsageError(`opt-out file (VERONIKAI_OPT_OUT_FILE): ${(err as Error).message}`);
    }
  }

  return { dataDir, cacheDir, kafkaBrokers, warehouse, apiHost, apiPort, contact, sourceUrls, sources, optOutFile };
}
